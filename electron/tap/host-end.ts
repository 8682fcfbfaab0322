/**
 * When the host ended its server through the tap (its stdin EOF, or a signal the tap forwarded),
 * on the relay's clock. The relay stamps the server's exit with it (`hostEnded`): an exit after
 * the host's end is the session's end, one before it is the server's own (`server-exited`).
 * The relay is the one place that sees both in order; the observer thread hears of them on two
 * channels that keep no order between them.
 * Owns: one time. Fed by: the relay (stdin EOF), the tap's entry (signals, main.ts). Listens:
 * the relay, as it posts the exit.
 */
import type { ExitInfo } from '../wire/protocol.js';

export class HostEnd {
  private at: number | null = null;

  /** The host's end at `t` (the first one counts). */
  ended(t: number): void {
    this.at ??= t;
  }

  /** Whether the host had ended the server by the time of `exit`. */
  before(exit: ExitInfo): boolean {
    return this.at !== null && this.at <= exit.t;
  }
}
