/**
 * SessionManager: the Node side of HostApi (shared/host-api.ts), once for every host.
 *
 * Owns: every Session a host started, their handshakes, recordings, and one SnapshotBuilder per
 * session (snapshot-builder.ts: the deltas between snapshots, kept small in a flood). Fed by: host
 * calls (`handle`, validated against the channel schemas) and the sessions' events. Listens: host
 * subscribers (Electron IPC, the browser-mode WebSocket) get at most 20 snapshots a second per
 * session, whatever the server does; lists inside a snapshot are capped and what was skipped is
 * counted.
 */
import { createHash } from 'node:crypto';
import {
  type ChannelPayload,
  type ChannelResponses,
  type HostChannel,
  type HostEvent,
  isHostChannel,
  parseChannelPayload,
  type SessionInfo,
} from '../../../shared/host-api.js';
import { err, ok, type Result } from '../../../shared/result.js';
import { DEMO_CATALOG } from '../../demo-servers/catalog.js';
import { discoverConfigs } from '../config/discovery.js';
import { importConfigText } from '../config/import.js';
import { callTool } from '../session/mcp-client.js';
import { type Session, SessionError } from '../session/session.js';
import type { TraceRecorder } from '../trace/recorder.js';
import { createSession, handshake } from './launch.js';
import { defaultTracePath, exportRecording, startRecording } from './recording.js';
import { SnapshotBuilder } from './snapshot-builder.js';
import { TraceHost } from './trace-sessions.js';

const SNAPSHOT_EVERY_MS = 50; // ≤ 20 Hz per session
const MAX_SESSIONS = 32;

interface Managed {
  session: Session;
  info: SessionInfo;
  deltas: SnapshotBuilder;
  recorder: TraceRecorder | null;
}

type Handler<C extends HostChannel> = (
  p: ChannelPayload<C>,
) => Promise<Result<ChannelResponses[C]>>;

export class SessionManager {
  private readonly sessions = new Map<string, Managed>();
  private readonly listeners = new Set<(e: HostEvent) => void>();
  private readonly timer: NodeJS.Timeout;
  private readonly traces = new TraceHost(
    (e) => this.emit(e),
    () => this.broadcastSessions(),
  );

  constructor() {
    this.timer = setInterval(() => this.flushSnapshots(), SNAPSHOT_EVERY_MS);
    this.timer.unref?.();
  }

  subscribe(listener: (e: HostEvent) => void): () => void {
    this.listeners.add(listener);
    listener({ type: 'sessions', sessions: this.infos() });
    for (const snapshot of this.traces.lastSnapshots()) listener({ type: 'snapshot', snapshot });
    // A late subscriber (page reload, browser-mode reconnect) would otherwise see nothing of an
    // idle session: snapshots are sent only when dirty and carry only changed requests. The
    // next flush resends metrics, findings and every request record (upserts by id: harmless
    // for subscribers that already had them).
    for (const m of this.sessions.values()) {
      for (const r of m.session.requests.all()) m.deltas.addRequest(r);
      m.deltas.touch();
    }
    return () => this.listeners.delete(listener);
  }

  /** Validates and dispatches one HostApi call; never throws. */
  async handle(channel: unknown, payload: unknown): Promise<Result<unknown>> {
    if (!isHostChannel(channel)) return err('EBADCHANNEL', `unknown channel ${String(channel)}`);
    const parsed = parseChannelPayload(channel, payload);
    if (!parsed.ok) return parsed;
    try {
      const handler = this.handlers[channel] as Handler<typeof channel>;
      return await handler(parsed.value as never);
    } catch (e) {
      return err('EINTERNAL', e instanceof Error ? e.message : String(e));
    }
  }

  private readonly handlers: { [C in HostChannel]: Handler<C> } = {
    'demo:list': async () => ok([...DEMO_CATALOG]),
    'session:list': async () => ok(this.infos()),
    'session:start': async (p) => this.start(p),
    'session:stop': async (p) =>
      this.traces.has(p.sessionId)
        ? ok(null)
        : this.with(p.sessionId, async (m) => {
            await m.session.stop();
            return ok(null);
          }),
    'session:close': async (p) => {
      if (this.traces.has(p.sessionId)) {
        await this.traces.close(p.sessionId);
        return ok(null);
      }
      return this.with(p.sessionId, async (m) => {
        await m.session.stop();
        this.sessions.delete(p.sessionId);
        this.broadcastSessions();
        return ok(null);
      });
    },
    'session:recover': async (p) =>
      this.with(p.sessionId, async (m) =>
        ok(await m.session.recover(undefined, { awaitQueue: true })),
      ),
    'session:set-reader-mode': async (p) =>
      this.with(p.sessionId, async (m) => {
        m.session.setReaderMode(p.mode);
        m.info.readerMode = p.mode;
        return ok(null);
      }),
    'session:set-consumer-delay': async (p) =>
      this.with(p.sessionId, async (m) => {
        m.session.setConsumerDelay(p.ms);
        m.info.consumerDelayMs = p.ms;
        return ok(null);
      }),
    'session:set-limits': async (p) =>
      this.with(p.sessionId, async (m) => {
        m.session.setLimits(p);
        Object.assign(m.info, {
          maxFrameBytes: m.session.config.maxFrameBytes,
          onOversize: m.session.config.onOversize,
          overloadPolicy: m.session.config.overloadPolicy,
        });
        return ok(null);
      }),
    'request:call-tool': async (p) =>
      this.running(p.sessionId, (m) => ok({ requestId: callTool(m.session, p.name, p.args).id })),
    'request:send': async (p) =>
      this.running(p.sessionId, (m) =>
        ok({ requestId: m.session.send(p.method, p.params, { progress: true }).id }),
      ),
    'request:ping': async (p) =>
      this.running(p.sessionId, (m) => ok({ requestId: m.session.send('ping').id })),
    'request:cancel': async (p) =>
      this.running(p.sessionId, (m) => {
        const r = m.session.cancel(p.requestId, p.reason);
        return r.ok ? ok(null) : err('ECANCEL', r.error);
      }),
    'request:replay': async (p) =>
      this.running(p.sessionId, (m) => {
        const sent = m.session.replay(p.requestId);
        return sent
          ? ok({ requestId: sent.id })
          : err('EREPLAY', `request ${p.requestId} cannot be replayed`);
      }),
    'frame:page': async (p) =>
      this.traces.has(p.sessionId)
        ? this.traces.framePage(p.sessionId, p.seq, p.offset, p.length)
        : this.with(p.sessionId, async (m) => {
            const page = m.session.frames.page(p.seq, p.offset, p.length);
            if (!page) return err('ENOFRAME', `frame ${p.seq} is not held (evicted or unknown)`);
            const sha = m.session.frames.sha256(p.seq);
            return ok({
              seq: page.seq,
              offset: page.offset,
              length: page.length,
              totalBytes: page.totalBytes,
              text: page.data.toString('utf8'),
              sha256: sha,
            });
          }),
    'config:import': async (p) => {
      try {
        return ok(importConfigText(p.text, p.format, p.fileName));
      } catch (e) {
        return err('EIMPORT', e instanceof Error ? e.message : String(e));
      }
    },
    'config:discover': async () => ok(await discoverConfigs()),
    'session:record': async (p) => this.with(p.sessionId, async (m) => this.record(m, p)),
    'trace:open': async (p) => this.traces.open(p.path),
    'trace:upload': async (p) => this.traces.upload(p),
    'trace:seek': async (p) => this.traces.seek(p.traceId, p.t),
    'trace:replay': async (p) => this.traces.replay(p.traceId, p),
    'trace:export': async (p) => {
      if (p.traceId !== undefined) return this.traces.exportTrace(p.traceId, p.format);
      const id = p.sessionId ?? '';
      if (this.traces.has(id)) return this.traces.exportTrace(id, p.format);
      return this.with(id, async (m) =>
        m.info.recording
          ? exportRecording(m.info.recording.path, p.format)
          : err('ENOTRACE', 'this session is not recorded: turn Record on first'),
      );
    },
  };

  /** Starts or stops recording a live session to a trace file (default: defaultTracePath). */
  private async record(
    m: Managed,
    p: ChannelPayload<'session:record'>,
  ): Promise<Result<{ path: string | null }>> {
    if (!p.record) {
      const recorder = m.recorder;
      if (!recorder) return ok({ path: m.info.recording?.path ?? null });
      await this.finishRecording(m, recorder);
      return ok({ path: recorder.path });
    }
    if (m.recorder) return ok({ path: m.recorder.path });
    if (m.session.state === 'stopped' || m.session.state === 'failed')
      return err('ENOTRUNNING', `session is ${m.session.state}: nothing left to record`);
    const file = p.path ?? defaultTracePath(m.info.title);
    const started = startRecording(m.session, file, (message) => {
      if (m.recorder?.path === file) m.recorder = null;
      if (m.info.recording?.path === file)
        m.info.recording = { ...m.info.recording, active: false };
      m.deltas.touch();
      this.broadcastSessions();
      this.emit({ type: 'notice', level: 'error', text: message, sessionId: m.info.id });
    });
    if (!started.ok) {
      this.emit({
        type: 'notice',
        level: 'error',
        text: started.error.message,
        sessionId: m.info.id,
      });
      return started;
    }
    const recorder = started.value;
    m.recorder = recorder;
    m.info.recording = { path: recorder.path, bytes: recorder.writtenBytes, active: true };
    // The recorder finishes the file itself once the session stops; mark it finished then.
    m.session.on('state', (state) => {
      if (state === 'stopped' && m.recorder === recorder) void this.finishRecording(m, recorder);
    });
    m.deltas.touch();
    this.broadcastSessions();
    return ok({ path: recorder.path });
  }

  private async finishRecording(m: Managed, recorder: TraceRecorder): Promise<void> {
    await recorder.finish();
    if (m.recorder === recorder) m.recorder = null;
    if (m.info.recording?.path === recorder.path && !recorder.error)
      m.info.recording = { path: recorder.path, bytes: recorder.writtenBytes, active: false };
    m.deltas.touch();
    this.broadcastSessions();
  }

  private async with<T>(id: string, fn: (m: Managed) => Promise<Result<T>>): Promise<Result<T>> {
    const m = this.sessions.get(id);
    return m ? fn(m) : err('ENOSESSION', `no session ${id}`);
  }

  private async running<T>(id: string, fn: (m: Managed) => Result<T>): Promise<Result<T>> {
    const m = this.sessions.get(id);
    if (!m) return err('ENOSESSION', `no session ${id}`);
    if (m.session.state !== 'running') return err('ENOTRUNNING', `session is ${m.session.state}`);
    return fn(m);
  }

  private async start(p: ChannelPayload<'session:start'>): Promise<Result<SessionInfo>> {
    // Sessions still starting count too, or simultaneous starts would all pass the cap.
    const live = [...this.sessions.values()].filter(
      (m) => m.session.state === 'running' || m.session.state === 'starting',
    ).length;
    if (live >= MAX_SESSIONS) return err('ELIMIT', `at most ${MAX_SESSIONS} running sessions`);
    const created = createSession(p);
    if (!created.ok) return created;
    const { session, info } = created.value;
    const deltas = new SnapshotBuilder(undefined, undefined, (f) => session.frames.previewOf(f));
    const m: Managed = { session, info, deltas, recorder: null };
    this.sessions.set(session.id, m);
    this.wire(m);
    try {
      await session.whenStarted();
      info.pid = session.pid;
    } catch (e) {
      info.startError = e instanceof SessionError ? e.message : String(e);
    }
    info.state = session.state;
    this.broadcastSessions();
    if (!info.startError) void this.handshake(m);
    return ok(info);
  }

  private async handshake(m: Managed): Promise<void> {
    await handshake(m.session, m.info);
    m.deltas.touch();
    this.broadcastSessions();
  }

  private wire(m: Managed): void {
    const s = m.session;
    const d = m.deltas;
    s.on('frame', (f) => d.addFrame(f));
    s.on('request', (r) => d.addRequest(r));
    s.on('stderr', (text) => d.addStderr(text));
    s.on('finding', () => d.touch());
    s.on('tick', () => d.touch());
    s.on('state', (state) => {
      m.info.state = state;
      m.info.pid = s.pid;
      d.touch();
      this.broadcastSessions();
    });
    s.on('exit', (exit) => {
      m.info.exit = { code: exit.code, signal: exit.signal };
      d.touch();
    });
  }

  private flushSnapshots(): void {
    if (this.listeners.size === 0) return;
    for (const m of this.sessions.values()) {
      if (!m.deltas.dirty) continue;
      if (m.recorder && m.info.recording)
        m.info.recording = { ...m.info.recording, bytes: m.recorder.writtenBytes };
      const snapshot = m.deltas.build(m.info, m.session.liveMetrics(), m.session.findings.all());
      this.emit({ type: 'snapshot', snapshot });
    }
  }

  private infos(): SessionInfo[] {
    return [...[...this.sessions.values()].map((m) => ({ ...m.info })), ...this.traces.infos()];
  }

  private broadcastSessions(): void {
    this.emit({ type: 'sessions', sessions: this.infos() });
  }

  private emit(e: HostEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a broken listener must not stop the others
      }
    }
  }

  /** Stops every session through the stop ladder (app quit, browser-mode shutdown). */
  async stopAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.sessions.values()].map((m) => m.session.stop()));
    // Stopped sessions finish their recordings themselves; wait for the files to be complete.
    await Promise.all([...this.sessions.values()].map((m) => m.recorder?.finish().catch(() => {})));
    await this.traces.dispose();
    this.flushSnapshots();
  }

  /** A short fingerprint for logs without leaking config (never the env values). */
  static fingerprint(info: SessionInfo): string {
    return createHash('sha256')
      .update(`${info.command}\0${info.args.join('\0')}`)
      .digest('hex')
      .slice(0, 12);
  }
}
