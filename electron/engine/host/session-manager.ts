/**
 * SessionManager: the Node side of HostApi (shared/host-api.ts), once for every host (Electron
 * IPC, the browser-mode WebSocket, in-process callers).
 *
 * Owns: the live sessions (live-session.ts) and the open traces (trace-sessions.ts), the
 * handlers of every channel, registered by domain (handlers/*.ts), and the snapshot timer.
 * Fed by: host calls, validated once where they enter (`handle`, or `dispatch` for a HostCall
 * a host validated itself) and the sessions' events. Listens: host subscribers get at most 20
 * snapshots a second per session, whatever the server does; lists inside a snapshot are capped
 * and what was skipped is counted (snapshot-builder.ts).
 */
import { createHash } from 'node:crypto';
import {
  type ChannelPayload,
  type HostCall,
  type HostEvent,
  parseHostCall,
} from '../../../shared/host-api.js';
import { DisposableStore, toDisposable } from '../../../shared/lifecycle.js';
import { err, type Result } from '../../../shared/result.js';
import type { SessionInfo, SessionSnapshot } from '../../../shared/session-info.js';
import type { Session } from '../session/session.js';
import type { HostContext } from './context.js';
import { HandlerRegistry } from './handler-registry.js';
import { registerAttachHandlers } from './handlers/attach.js';
import { registerConfigHandlers } from './handlers/config.js';
import { registerFrameHandlers } from './handlers/frames.js';
import { registerRequestHandlers } from './handlers/requests.js';
import { registerSessionHandlers } from './handlers/sessions.js';
import { registerTraceHandlers } from './handlers/traces.js';
import type { HostedSession } from './hosted.js';
import { LiveSession } from './live-session.js';
import { TapHub } from './tap-hub.js';
import { distinctTitle } from './titles.js';
import { TraceSessions } from './trace-sessions.js';

const SNAPSHOT_EVERY_MS = 50; // ≤ 20 Hz per session

export class SessionManager implements HostContext {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly listeners = new Set<(e: HostEvent) => void>();
  private readonly handlers = new HandlerRegistry();
  private readonly store = new DisposableStore();
  /** Sessions `pipescope tap` publishes (tap-hub.ts), once `startTaps` was called. */
  private taps: TapHub | null = null;
  readonly traces = new TraceSessions(
    (e) => this.emit(e),
    () => this.sessionsChanged(),
    (base, self) => this.uniqueTitle(base, self),
  );

  constructor() {
    const timer = setInterval(() => this.flushSnapshots(), SNAPSHOT_EVERY_MS);
    timer.unref?.();
    this.store.add(toDisposable(() => clearInterval(timer)));
    registerSessionHandlers(this.handlers, this);
    registerRequestHandlers(this.handlers, this);
    registerFrameHandlers(this.handlers, this);
    registerTraceHandlers(this.handlers, this);
    registerConfigHandlers(this.handlers);
    registerAttachHandlers(this.handlers);
    // A session of the app's own has no tap behind it (tapped ones never reach the handlers).
    this.handlers.on('tap:dump', async (p) =>
      err('ENOTTAP', `session ${p.sessionId} is not tapped`),
    );
    this.handlers.assertComplete();
  }

  subscribe(listener: (e: HostEvent) => void): () => void {
    // What changed goes to the subscribers so far first; the new one then gets each session's
    // whole state as of that moment, to itself alone (a reload, a second window, a reconnect
    // sees what it would have seen live, and nobody else is sent anything again).
    // (Built even with nobody listening: what is pending must not come again after the whole.)
    this.flushSnapshots(true);
    this.listeners.add(listener);
    listener({ type: 'sessions', sessions: this.infos() });
    for (const snapshot of this.traces.lastSnapshots()) listener({ type: 'snapshot', snapshot });
    for (const s of this.sessions.values())
      listener({ type: 'snapshot', snapshot: s.fullSnapshot() });
    // Tapped sessions' whole states are their taps' to give: asked for, to this one alone.
    void this.taps?.wholeStates().then((snapshots) => {
      if (!this.listeners.has(listener)) return;
      for (const snapshot of snapshots) listener({ type: 'snapshot', snapshot });
    });
    return () => this.listeners.delete(listener);
  }

  /** One session's whole state now, once what changed so far has gone to the listeners (so
   *  none of it comes again after): a tap's answer to an app that just subscribed (publish.ts). */
  wholeState(id: string): SessionSnapshot | null {
    this.flushSnapshots(true);
    return this.sessions.get(id)?.fullSnapshot() ?? null;
  }

  /** Validates and runs one HostApi call from an in-process caller; never throws. */
  async handle(channel: unknown, payload: unknown): Promise<Result<unknown>> {
    const call = parseHostCall(channel, payload);
    return call.ok ? this.dispatch(call.value) : call;
  }

  /** Runs a call already validated where it entered (the IPC handler, the WebSocket bridge). */
  dispatch(call: HostCall): Promise<Result<unknown>> {
    // A tapped session's calls go to its tap, which says what it allows (tap/publish.ts).
    const id = (call.payload as { sessionId?: unknown }).sessionId;
    if (typeof id === 'string' && !this.showsOwn(id) && this.taps?.owns(id))
      return this.taps.call(id, call.channel, call.payload);
    return this.handlers.dispatch(call);
  }

  /** Whether `id` is a session of the app's own: live or a trace (tap-hub.ts). */
  showsOwn(id: string): boolean {
    return this.sessions.has(id) || this.traces.get(id) !== null;
  }

  /** Listens for taps (the app and browser mode do; a tap's own manager does not). */
  async startTaps(dir?: string): Promise<string | null> {
    if (this.taps) return null;
    const hub = await TapHub.start(this, dir);
    if (typeof hub === 'string') return hub;
    this.taps = hub;
    return null;
  }

  // ---- HostContext (what the handlers are given) ----

  find(id: string): HostedSession | null {
    return this.sessions.get(id) ?? this.traces.get(id);
  }

  live(id: string): LiveSession | null {
    return this.sessions.get(id) ?? null;
  }

  liveCount(): number {
    let n = 0;
    for (const s of this.sessions.values()) {
      const state = s.session.state;
      if (state === 'running' || state === 'starting') n += 1;
    }
    return n;
  }

  adopt(
    session: Session,
    info: SessionInfo,
    options: { launch?: ChannelPayload<'session:start'>; replacing?: string } = {},
  ): LiveSession {
    const live = new LiveSession(
      session,
      info,
      {
        changed: () => this.sessionsChanged(),
        notice: (text) => this.emit({ type: 'notice', level: 'error', text, sessionId: info.id }),
        closed: (id) => this.forget(id),
      },
      options.launch ?? null,
    );
    const old = options.replacing === undefined ? undefined : this.sessions.get(options.replacing);
    if (!old) {
      this.sessions.set(session.id, live);
      return live;
    }
    // A restart takes the old session's place: the list (and the tab bar) keeps its order.
    const entries = [...this.sessions];
    this.sessions.clear();
    for (const [id, s] of entries) {
      if (s === old) this.sessions.set(session.id, live);
      else this.sessions.set(id, s);
    }
    old.dispose();
    return live;
  }

  uniqueTitle(base: string, self?: string): string {
    return distinctTitle(
      base,
      this.infos()
        .filter((i) => i.id !== self)
        .map((i) => i.title),
    );
  }

  forget(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    s.dispose();
    this.sessionsChanged();
  }

  infos(): SessionInfo[] {
    const own = [...this.sessions.values()].map((s) => s.infoNow());
    return [...own, ...(this.taps?.infos() ?? []), ...this.traces.infos()];
  }

  sessionsChanged(): void {
    this.emit({ type: 'sessions', sessions: this.infos() });
  }

  emit(e: HostEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a broken listener must not stop the others
      }
    }
  }

  private flushSnapshots(evenUnheard = false): void {
    if (this.listeners.size === 0 && !evenUnheard) return;
    for (const s of this.sessions.values()) {
      const snapshot = s.snapshot();
      if (snapshot) this.emit({ type: 'snapshot', snapshot });
    }
  }

  /** Stops every session through the stop ladder (app quit, browser-mode shutdown). */
  async stopAll(): Promise<void> {
    this.store.dispose();
    await this.taps?.close();
    this.taps = null;
    const all = [...this.sessions.values()];
    await Promise.all(all.map((s) => s.stop('pipescope')));
    // Stopped sessions finish their recordings themselves; wait for the files to be complete.
    await Promise.all(all.map((s) => s.finishWriting()));
    await this.traces.dispose();
    this.flushSnapshots();
    for (const s of all) s.dispose();
  }

  /** A short fingerprint for logs without leaking config (never the env values). */
  static fingerprint(info: SessionInfo): string {
    return createHash('sha256')
      .update(`${info.command}\0${info.args.join('\0')}`)
      .digest('hex')
      .slice(0, 12);
  }
}
