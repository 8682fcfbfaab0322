/**
 * What the domain handlers (handlers/*.ts) are given of the SessionManager, and the lookups
 * they share: a session of either kind, a live one, a running one.
 */
import type { ChannelPayload, HostEvent } from '../../../shared/host-api.js';
import { err, type Result } from '../../../shared/result.js';
import type { SessionInfo } from '../../../shared/session-info.js';
import type { Session } from '../session/session.js';
import type { HostedSession } from './hosted.js';
import type { LiveSession } from './live-session.js';
import type { TraceSessions } from './trace-sessions.js';

export interface HostContext {
  /** A live or a trace session by id: the one lookup of both kinds. */
  find(id: string): HostedSession | null;
  /** A live session by id. */
  live(id: string): LiveSession | null;
  /** Live sessions starting or running (the cap counts both). */
  liveCount(): number;
  /**
   * Registers a live session just created; its events now reach subscribers. `launch`: the
   * start payload it came from (Restart reuses it); `replacing`: the id of an ended session
   * whose place (in the list, so in the tab bar) it takes, and which the host forgets.
   */
  adopt(
    session: Session,
    info: SessionInfo,
    options?: { launch?: ChannelPayload<'session:start'>; replacing?: string },
  ): LiveSession;
  /** `base`, or `base #n` when another session (but `self`) is called that already. */
  uniqueTitle(base: string, self?: string): string;
  /** Removes a session from the host (after it was closed). */
  forget(id: string): void;
  readonly traces: TraceSessions;
  /** Every session's info, live then traces. */
  infos(): SessionInfo[];
  emit(e: HostEvent): void;
  /** The session list changed (state, title, a recording): tell every subscriber. */
  sessionsChanged(): void;
}

/** `fn` on the session `id`, of either kind. */
export async function withHosted<T>(
  ctx: HostContext,
  id: string,
  fn: (s: HostedSession) => Promise<Result<T>>,
): Promise<Result<T>> {
  const s = ctx.find(id);
  return s ? fn(s) : err('ENOSESSION', `no session ${id}`);
}

/** `fn` on the live session `id`. */
export async function withLive<T>(
  ctx: HostContext,
  id: string,
  fn: (s: LiveSession) => Promise<Result<T>> | Result<T>,
): Promise<Result<T>> {
  const s = ctx.live(id);
  if (s) return fn(s);
  const why = ctx.find(id)
    ? `session ${id} is a trace: no server runs behind it`
    : `no session ${id}`;
  return err('ENOSESSION', why);
}

/** `fn` on the live session `id` while its server is running. */
export async function withRunning<T>(
  ctx: HostContext,
  id: string,
  fn: (s: LiveSession) => Result<T>,
): Promise<Result<T>> {
  return withLive(ctx, id, (s) => {
    const state = s.session.state;
    return state === 'running' ? fn(s) : err('ENOTRUNNING', `session is ${state}`);
  });
}
