/**
 * Tap hub: the app's side of the tap link (tap-link.ts). Listens on the user's tap socket, takes
 * taps that present the token, and shows their sessions as its own: their events go to the
 * app's subscribers as they come, their SessionInfo joins the list, and calls on their session
 * ids go back to the tap that owns them (which decides what it allows: publish.ts).
 *
 * Owns: the listening socket, the token file it wrote, every tap connection (at most MAX_TAPS),
 * and the calls waiting for an answer (each with a timeout). Fed by: taps. Listens: the
 * SessionManager, through `TapHubHost`.
 */
import { rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { HostEvent } from '../../../shared/host-api.js';
import { err, type Result } from '../../../shared/result.js';
import type { SessionInfo, SessionSnapshot, TapInfo } from '../../../shared/session-info.js';
import {
  makePrivateFolder,
  readLines,
  TAP_LINE_MAX_BYTES,
  TAP_LINK_VERSION,
  type TapToApp,
  tapLinkDir,
  tapLinkPaths,
  tapLinkUnavailable,
  tokensEqual,
  writeLine,
  writeTapToken,
} from './tap-link.js';

const MAX_TAPS = 64;
const HELLO_TIMEOUT_MS = 2000;
const CALL_TIMEOUT_MS = 15_000;

export interface TapHubHost {
  emit(e: HostEvent): void;
  sessionsChanged(): void;
  /** Whether `id` is a session of the app's own (a tap may never claim it). */
  showsOwn(id: string): boolean;
}

interface TapConnection {
  socket: Socket;
  tap: TapInfo;
  sessions: SessionInfo[];
  /** Calls on its sessions waiting for its answer (only it may answer them). */
  calls: Map<number, (r: Result<unknown>) => void>;
}

const HELLO_MAX_BYTES = 16 * 1024;
const MAX_SESSIONS_PER_TAP = 8;
const MAX_CALLS = 64;

// biome-ignore lint/suspicious/noExplicitAny: a parsed message, checked field by field
function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

function isTapInfo(v: unknown): v is TapInfo {
  return (
    isObject(v) &&
    typeof v.name === 'string' &&
    typeof v.tapPid === 'number' &&
    isObject(v.host) &&
    isStringOrNull(v.host.label) &&
    typeof v.host.pid === 'number' &&
    isStringOrNull(v.host.command) &&
    isObject(v.server) &&
    typeof v.server.command === 'string' &&
    Array.isArray(v.server.args) &&
    v.server.args.every((a: unknown) => typeof a === 'string') &&
    typeof v.server.cwd === 'string' &&
    (v.relay === undefined ||
      (isObject(v.relay) &&
        (v.relay.kind === 'native' || v.relay.kind === 'node') &&
        isStringOrNull(v.relay.reason)))
  );
}

function listenOn(file: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(file, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Whether something listens on the socket at `file`. */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(file);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export class TapHub {
  private server: Server | null = null;
  private token = '';
  private readonly taps = new Set<TapConnection>();
  private nextCall = 1;
  readonly socketPath: string;

  private constructor(
    private readonly host: TapHubHost,
    private readonly dir: string,
  ) {
    this.socketPath = tapLinkPaths(dir).socket;
  }

  /** Starts listening; null (and why) when it cannot here. */
  static async start(host: TapHubHost, dir = tapLinkDir()): Promise<TapHub | string> {
    const why = tapLinkUnavailable();
    if (why) return why;
    const hub = new TapHub(host, dir);
    try {
      await hub.listen();
    } catch (e) {
      return `taps cannot be shown: ${(e as Error).message}`;
    }
    return hub;
  }

  private async listen(): Promise<void> {
    makePrivateFolder(this.dir);
    let server: Server;
    try {
      server = await listenOn(this.socketPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      // Another Pipescope shows the taps already; a file left by one that died is taken over.
      if (await answers(this.socketPath))
        throw new Error(`another Pipescope already shows taps (${this.socketPath})`);
      rmSync(this.socketPath, { force: true });
      server = await listenOn(this.socketPath);
    }
    server.on('connection', (socket) => this.accept(socket));
    server.maxConnections = MAX_TAPS;
    server.on('error', () => {});
    // Only once the socket is ours: a token taps will present to us.
    try {
      this.token = writeTapToken(this.dir);
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw e;
    }
    this.server = server;
  }

  private accept(socket: Socket): void {
    let conn: TapConnection | null = null;
    const hello = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(hello);
      if (conn) this.gone(conn);
    });
    readLines(
      socket,
      (raw) => {
        const msg = raw as TapToApp;
        if (!conn) {
          const ok =
            isObject(msg) &&
            msg.type === 'hello' &&
            msg.version === TAP_LINK_VERSION &&
            typeof msg.token === 'string' &&
            tokensEqual(msg.token, this.token) &&
            isTapInfo(msg.tap);
          if (!ok) return void socket.destroy();
          clearTimeout(hello);
          conn = { socket, tap: msg.tap, sessions: [], calls: new Map() };
          this.taps.add(conn);
          return;
        }
        if (!isObject(msg)) throw new Error('not a message');
        if (msg.type === 'event' && isObject(msg.event)) this.onEvent(conn, msg.event);
        else if (msg.type === 'result' && typeof msg.id === 'number' && isObject(msg.result))
          conn.calls.get(msg.id)?.(msg.result);
        else throw new Error('not a message');
      },
      // Until it has said who it is, a connection may send a hello and no more.
      () => (conn ? TAP_LINE_MAX_BYTES : HELLO_MAX_BYTES),
    );
  }

  /** What a tap says of its sessions: only ids it listed, never one the app or another tap
   *  shows; anything malformed ends its connection (readLines). */
  private onEvent(conn: TapConnection, e: HostEvent): void {
    if (e.type === 'sessions') {
      if (!Array.isArray(e.sessions)) throw new Error('not a session list');
      const taken = (id: string): boolean =>
        this.host.showsOwn(id) ||
        [...this.taps].some((c) => c !== conn && c.sessions.some((s) => s.id === id));
      // Its own session (which carries its TapInfo) and the replays it started (which do not).
      conn.sessions = e.sessions
        .filter((s) => isObject(s) && typeof s.id === 'string' && typeof s.title === 'string')
        .filter((s) => !taken(s.id))
        .slice(0, MAX_SESSIONS_PER_TAP)
        .map((s) => ({ ...s, tap: isTapInfo(s.tap) ? s.tap : { ...conn.tap, replay: true } }));
      this.host.sessionsChanged();
      return;
    }
    const id =
      e.type === 'snapshot'
        ? isObject(e.snapshot)
          ? e.snapshot.sessionId
          : undefined
        : e.type === 'notice'
          ? e.sessionId
          : undefined;
    if (typeof id === 'string' && conn.sessions.some((s) => s.id === id)) this.host.emit(e);
  }

  private gone(conn: TapConnection): void {
    this.taps.delete(conn);
    for (const [, done] of conn.calls) done(err('ETAP', 'the tap went away'));
    if (conn.sessions.length > 0) this.host.sessionsChanged();
  }

  /** Every tapped session's info (listed after the app's own). */
  infos(): SessionInfo[] {
    return [...this.taps].flatMap((c) => c.sessions);
  }

  /** The tap that shows session `id`, if any. */
  private owner(id: string): TapConnection | null {
    for (const c of this.taps) if (c.sessions.some((s) => s.id === id)) return c;
    return null;
  }

  owns(id: string): boolean {
    return this.owner(id) !== null;
  }

  /** A call on a tapped session, answered by its tap (or an error if it does not answer). */
  call(sessionId: string, channel: string, payload: unknown): Promise<Result<unknown>> {
    const conn = this.owner(sessionId);
    if (!conn) return Promise.resolve(err('ENOSESSION', `no session ${sessionId}`));
    const id = this.nextCall++;
    const calls = conn.calls;
    if (calls.size >= MAX_CALLS) return Promise.resolve(err('ETAP', 'the tap has too many calls'));
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(err('ETAP', 'the tap did not answer')), CALL_TIMEOUT_MS);
      const done = (r: Result<unknown>): void => {
        clearTimeout(timer);
        calls.delete(id);
        resolve(r);
      };
      calls.set(id, done);
      if (!writeLine(conn.socket, { type: 'call', id, channel, payload }, 8 * 1024 * 1024))
        done(err('ETAP', 'the tap is not taking messages'));
    });
  }

  /** Every tapped session's whole state, each asked of its tap (`tap:snapshot`): for an app
   *  subscriber that just came, which the deltas so far never reached. A tap that does not
   *  answer, or answers with another session's, is left out. */
  async wholeStates(): Promise<SessionSnapshot[]> {
    const asked = [...this.taps].flatMap((c) =>
      c.sessions.map(async (s) => {
        const r = await this.call(s.id, 'tap:snapshot', { sessionId: s.id });
        const snapshot = r.ok ? r.value : null;
        return isObject(snapshot) && snapshot.sessionId === s.id && this.owner(s.id) === c
          ? (snapshot as SessionSnapshot)
          : null;
      }),
    );
    return (await Promise.all(asked)).filter((s): s is SessionSnapshot => s !== null);
  }

  async close(): Promise<void> {
    for (const c of this.taps) {
      c.socket.destroy();
      for (const [, done] of c.calls) done(err('ETAP', 'the app is closing'));
    }
    this.taps.clear();
    const server = this.server;
    this.server = null;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(this.socketPath, { force: true });
  }
}
