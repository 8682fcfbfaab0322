/**
 * Whether a server's work went on after it had read a cancellation, told by order on its
 * stdout rather than by a clock. The server reads its stdin in order: the cancellation, then
 * the recovery ping sent after it. Whatever it writes after its answer to that ping — progress
 * for the cancelled call, its answer, a stream of notifications — it wrote knowing of the
 * cancellation. What arrives before the ping's answer may have crossed the cancellation in
 * flight (DESIGN.md: a late response must be accepted, never called a fault by itself), so a
 * loaded machine's delays cannot fail a server that stops at once.
 *
 * Owns: its listener on the session's frames (`dispose`). Fed by: the session's `frame` events.
 */
import type { FrameSummary } from '../../../shared/frames.js';
import type { Disposable } from '../../../shared/lifecycle.js';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import type { Session } from '../session/session.js';

/** Notifications after the ping's answer still taken for unrelated ones (a periodic log). */
export const STRAGGLERS_MAX = 3;

export class AfterCancel implements Disposable {
  private pingId: JsonRpcId | null = null;
  /** The recovery ping was answered: what follows is ordered after the cancellation. */
  pingAnswered = false;
  /** Notifications of any kind after the ping's answer. */
  notifications = 0;
  /** The cancelled call's answer came after the ping's. */
  answerAfterPing = false;
  private progressAtPing = 0;

  constructor(
    private readonly session: Session,
    private readonly call: RequestRecord,
  ) {
    session.on('frame', this.onFrame);
  }

  private readonly onFrame = (f: FrameSummary): void => {
    if (f.dir === 'out') {
      // The first ping sent after the cancellation is the recovery probe.
      if (this.pingId === null && f.method === 'ping' && f.id !== undefined && f.id !== null)
        this.pingId = f.id;
      return;
    }
    if (!this.pingAnswered) {
      if (f.kind === 'response' && this.pingId !== null && f.id === this.pingId) {
        this.pingAnswered = true;
        this.progressAtPing = this.call.progressCount;
      }
      return;
    }
    if (f.kind === 'notification') this.notifications += 1;
    else if (f.kind === 'response' && f.id === this.call.id) this.answerAfterPing = true;
  };

  /** Progress for the cancelled call after the ping's answer. */
  get progressAfterPing(): number {
    return this.pingAnswered ? this.call.progressCount - this.progressAtPing : 0;
  }

  /** The work went on after the server had read the cancellation. */
  get wentOn(): boolean {
    return (
      this.answerAfterPing || this.progressAfterPing > 0 || this.notifications > STRAGGLERS_MAX
    );
  }

  /** What went on, in words (null: nothing). */
  words(): string | null {
    if (!this.wentOn) return null;
    const parts: string[] = [];
    if (this.progressAfterPing > 0)
      parts.push(`${this.progressAfterPing} progress notification(s)`);
    else if (this.notifications > STRAGGLERS_MAX)
      parts.push(`${this.notifications} notification(s)`);
    if (this.answerAfterPing) parts.push('its answer');
    return `after answering the ping sent behind the cancellation, the server still sent ${parts.join(' and ')} for the cancelled call: its work went on`;
  }

  dispose(): void {
    this.session.off('frame', this.onFrame);
  }
}
