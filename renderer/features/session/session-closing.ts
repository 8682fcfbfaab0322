/**
 * Which sessions "Close stopped" and "Close others" take, and how a close goes for each kind:
 * the host's own tapped sessions are only hidden here (their host owns the server); every other
 * session is closed by the host, several in one `session:close-many`. Pure.
 */
import { isEnded, type SessionInfo } from '../../../shared/session-info';
import { hostTap } from '../tap/tap-view';

/** Sessions whose server is over: live sessions only (a trace is a document, a tapped
 *  session's server is its host's). */
export function stoppedSessions(sessions: readonly SessionInfo[]): SessionInfo[] {
  return sessions.filter((s) => isEnded(s.state) && !s.trace && !hostTap(s));
}

/** Every session but the active one. */
export function otherSessions(
  sessions: readonly SessionInfo[],
  activeId: string | null,
): SessionInfo[] {
  return sessions.filter((s) => s.id !== activeId);
}

/** The ids to hide here (the host's tapped sessions) and to close on the host (the rest). */
export function closePlan(sessions: readonly SessionInfo[]): { hide: string[]; close: string[] } {
  const hide: string[] = [];
  const close: string[] = [];
  for (const s of sessions) (hostTap(s) ? hide : close).push(s.id);
  return { hide, close };
}
