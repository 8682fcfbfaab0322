/**
 * Publisher: shows a tap's session live in a running Pipescope (tap-link.ts has the protocol).
 *
 * The tap keeps a SessionManager of its own with its one session adopted, so the app gets the
 * very events (sessions, snapshots, notices) it would make for a session of its own, and a new
 * connection gets the whole state first. The app's calls come back here and only these pass:
 * a session's whole state (for an app window that opened after it started), a frame's page or
 * a payload search, an export, a cancellation (written between two of the host's lines and
 * marked as sent by Pipescope), the flight recorder's dump, and a replay of a
 * host request against a fresh server process (started here, with the host's environment, and
 * published beside it).
 * Anything that would change the host's session (stop, reader mode, limits) is refused.
 *
 * Owns: the SessionManager, the socket, the retry timer. Fed by: the session, the app's calls.
 * Without an app it retries every RETRY_MS (a connect to a missing socket costs microseconds).
 */
import { connect, type Socket } from 'node:net';
import type { FrameSummary } from '../../shared/frames.js';
import type { HostEvent } from '../../shared/host-api.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { SessionInfo } from '../../shared/session-info.js';
import { createSession, handshake } from '../engine/host/launch.js';
import { processAvailability } from '../engine/host/live-session.js';
import { SessionManager } from '../engine/host/session-manager.js';
import {
  type AppToTap,
  readLines,
  readTapToken,
  TAP_LINK_VERSION,
  type TapToApp,
  tapLinkPaths,
  tapLinkUnavailable,
  writeLine,
} from '../engine/host/tap-link.js';
import type { Session } from '../engine/session/session.js';
import type { FlightRecorder } from '../engine/trace/flight-recorder.js';
import type { ObserverConfig } from './observer-config.js';

const RETRY_MS = 2000;
/** Replays (each a fresh server process) running at once, besides the host's session. */
const MAX_REPLAYS = 4;
/** The host's handshake answers read for server info and tools, at most this large. */
const LEARN_MAX_BYTES = 4 * 1024 * 1024;
const LEARN_MAX_TOOLS = 1000;
/** Past this much unsent, events are skipped; the whole state is sent again once it drains. */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
/** What the app may do with the host's session, and with a replay this tap started. */
const ON_TAPPED = new Set([
  'frame:page',
  'frame:search',
  'frame:find',
  'trace:export',
  'request:cancel',
]);
const ON_REPLAY = new Set([
  ...ON_TAPPED,
  'request:replay',
  'request:ping',
  'request:send',
  'request:call-tool',
  'session:stop',
  'session:close',
  'session:recover',
]);

export class Publisher {
  readonly manager = new SessionManager();
  private socket: Socket | null = null;
  private unsubscribe: (() => void) | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  private behind = false;
  /** Sessions this tap started to replay a host's request (the app may drive those). */
  private readonly replays = new Set<string>();
  readonly info: SessionInfo;

  constructor(
    private readonly session: Session,
    private readonly cfg: ObserverConfig,
    private readonly flight: FlightRecorder,
    private readonly say: (text: string) => void,
  ) {
    this.info = tappedInfo(session, cfg);
    this.manager.adopt(session, this.info);
    session.on('state', (state) => {
      this.info.state = state;
      this.info.pid = session.pid;
      this.info.exit = session.exit && { code: session.exit.code, signal: session.exit.signal };
      this.manager.sessionsChanged();
    });
    session.on('frame', (f) => this.learn(f));
    if (tapLinkUnavailable() === null) this.tryConnect();
  }

  /** What the host's own handshake learned (server info, tools): the app shows it as its own. */
  private learn(f: FrameSummary): void {
    if (f.dir !== 'in' || f.kind !== 'response' || f.id === undefined || f.id === null) return;
    const method = this.session.requests.get(f.id)?.method;
    if ((method !== 'initialize' && method !== 'tools/list') || f.bytes > LEARN_MAX_BYTES) return;
    const data = this.session.frames.page(f.seq, 0, f.bytes)?.data;
    if (!data) return;
    let result: Record<string, unknown>;
    try {
      result =
        (JSON.parse(data.toString('utf8')) as { result?: Record<string, unknown> }).result ?? {};
    } catch {
      return;
    }
    if (method === 'initialize') {
      const si = result.serverInfo as { name?: unknown; version?: unknown } | undefined;
      this.info.serverInfo = {
        name: String(si?.name ?? '?'),
        version: String(si?.version ?? '?'),
        protocolVersion: String(result.protocolVersion ?? '?'),
      };
    } else if (Array.isArray(result.tools)) {
      // A first page (no cursor asked for) lists the tools afresh (after list_changed, say).
      const asked = this.session.requests.params(f.id) as { cursor?: unknown } | undefined;
      if (asked?.cursor === undefined) this.info.tools = [];
      for (const t of result.tools as Record<string, unknown>[]) {
        if (typeof t?.name !== 'string' || this.info.tools.length >= LEARN_MAX_TOOLS) continue;
        this.info.tools.push({
          name: t.name,
          ...(typeof t.title === 'string' && { title: t.title }),
          ...(typeof t.description === 'string' && { description: t.description }),
          inputSchema: (t.inputSchema as Record<string, unknown>) ?? {},
        });
      }
    }
    this.manager.sessionsChanged();
  }

  private tryConnect(): void {
    if (this.closed || this.socket) return;
    const token = readTapToken();
    if (!token) {
      this.later();
      return;
    }
    const socket = connect(tapLinkPaths().socket);
    socket.once('error', () => {
      socket.destroy();
      if (this.socket === socket) this.dropped();
      else this.later();
    });
    socket.once('connect', () => {
      this.socket = socket;
      socket.once('close', () => this.dropped());
      const hello: TapToApp = {
        type: 'hello',
        token,
        version: TAP_LINK_VERSION,
        tap: this.info.tap as NonNullable<SessionInfo['tap']>,
      };
      writeLine(socket, hello, MAX_BACKLOG_BYTES);
      readLines(socket, (msg) => void this.onCall(msg as AppToTap));
      socket.on('drain', () => this.caughtUp());
      this.unsubscribe = this.manager.subscribe((e) => this.send(e));
    });
  }

  private later(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.tryConnect();
    }, RETRY_MS);
    this.retry.unref();
  }

  private dropped(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.socket = null;
    this.later();
  }

  private send(event: HostEvent): void {
    const socket = this.socket;
    if (!socket || this.behind) return;
    if (!writeLine(socket, { type: 'event', event }, MAX_BACKLOG_BYTES)) this.behind = true;
  }

  /** The app was too slow to take everything: once it has, it gets the whole state again. */
  private caughtUp(): void {
    if (!this.behind) return;
    this.behind = false;
    this.unsubscribe?.();
    this.unsubscribe = this.manager.subscribe((e) => this.send(e));
  }

  private async onCall(msg: AppToTap): Promise<void> {
    if (msg?.type !== 'call' || typeof msg.id !== 'number') return;
    const result = await this.run(msg.channel, msg.payload);
    if (this.socket) writeLine(this.socket, { type: 'result', id: msg.id, result }, Infinity);
  }

  private async run(channel: string, payload: unknown): Promise<Result<unknown>> {
    const p = (payload ?? {}) as { sessionId?: unknown; requestId?: string | number };
    // Every call names one of this tap's sessions; nothing else of its manager is reachable
    // (no session:start, config, traces or demos: a listener at the socket must not run things).
    const id = typeof p.sessionId === 'string' ? p.sessionId : null;
    const own = id === this.session.id;
    const replay = id !== null && this.replays.has(id);
    if (!own && !replay) return err('ETAPPED', `${channel}: not a session of this tap`);
    if (own && channel === 'tap:dump') {
      const file = this.flight.dump('asked for from the app');
      return file ? ok({ path: file }) : err('EDUMP', 'the flight recorder could not be written');
    }
    if (own && channel === 'request:replay') return this.replay(p.requestId);
    // An app window that opened after this session started: its whole state, to that one.
    if (channel === 'tap:snapshot') {
      const whole = id === null ? null : this.manager.wholeState(id);
      return whole ? ok(whole) : err('ENOSESSION', `no session ${id}`);
    }
    if ((own ? ON_TAPPED : ON_REPLAY).has(channel)) return this.manager.handle(channel, payload);
    return own
      ? err('ETAPPED', `${channel}: the host owns this session (a tap only watches it)`)
      : err('ETAPPED', `${channel}: not offered on a tap's replay`);
  }

  /** The host's request `id`, sent again to a fresh process of the same server. */
  private async replay(id: string | number | undefined): Promise<Result<unknown>> {
    const r = id === undefined ? undefined : this.session.requests.get(id);
    if (!r || r.method === 'initialize') return err('EREPLAY', `request ${id} cannot be replayed`);
    if (this.manager.liveCount() > MAX_REPLAYS)
      return err('ELIMIT', `at most ${MAX_REPLAYS} replays of a tap's requests run at once`);
    const params = this.session.requests.params(r.id) as Record<string, unknown> | undefined;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const created = createSession({
      server: {
        name: `replay of ${String(r.id)} (${this.cfg.name})`,
        command: this.cfg.command,
        args: this.cfg.args,
        cwd: this.cfg.cwd,
        env,
      },
    });
    if (!created.ok) return created;
    const { session, info } = created.value;
    info.title = `${this.cfg.name}: replay of ${r.method} #${String(r.id)}`;
    this.manager.adopt(session, info);
    this.replays.add(session.id);
    try {
      await session.whenStarted();
    } catch (e) {
      info.startError = (e as Error).message;
      this.manager.sessionsChanged();
      return err('EREPLAY', info.startError);
    }
    info.pid = session.pid;
    await handshake(session, info);
    this.manager.sessionsChanged();
    const sent = session.send(r.method, params, { replayOf: r.id });
    this.say(`replaying ${r.method} #${String(r.id)} on a fresh server (pid ${session.pid})`);
    return ok({ requestId: sent.id, sessionId: session.id });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.manager.sessionsChanged();
    await this.manager.stopAll();
    // The last events (the session stopped, its findings) go before the socket closes.
    const socket = this.socket;
    this.unsubscribe?.();
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.end(resolve));
  }
}

function tappedInfo(session: Session, cfg: ObserverConfig): SessionInfo {
  const c = session.config;
  const host = cfg.host.label ?? cfg.host.command?.split(' ')[0] ?? 'host';
  return {
    id: session.id,
    title: `${host} → ${cfg.name}`,
    command: cfg.command,
    args: cfg.args,
    cwd: cfg.cwd,
    envNames: [],
    demoId: null,
    pid: session.pid,
    state: session.state,
    exit: null,
    startError: null,
    serverInfo: null,
    handshakeError: null,
    tools: [],
    readerMode: c.readerMode,
    consumerDelayMs: c.consumerDelayMs,
    overloadPolicy: c.overloadPolicy,
    onOversize: c.onOversize,
    maxFrameBytes: c.maxFrameBytes,
    resultBudgetBytes: c.resultBudgetBytes,
    hostProfile: c.hostProfile,
    budgets: { ...c.budgets },
    startedAt: cfg.startedAtEpochMs,
    recording: null,
    trace: null,
    process: processAvailability(session),
    tap: {
      name: cfg.name,
      host: cfg.host,
      tapPid: cfg.tapPid,
      server: { command: cfg.command, args: cfg.args, cwd: cfg.cwd },
      relay: cfg.relay,
    },
  };
}
