/**
 * Whether the worker reads the server's stdout now, and for how long it has not: the reader
 * modes (`paused`, `naive`) and the `pause` overload policy turn it off; the write-blocked rule
 * counts from when it went off. Owns: that state. Fed by: the transport worker (`set`).
 */
import type { Readable } from 'node:stream';

export class ReadSwitch {
  // The stream flows as soon as its data listener is attached: it starts "reading", so that a
  // session created paused records when it stopped reading.
  reading = true;
  private offMs = 0;
  private offSince: number | null = null;

  constructor(private readonly now: () => number) {}

  /** Reads `stdout` or not; a change only when `want` is new. */
  set(want: boolean, stdout: Readable | null | undefined): void {
    if (want === this.reading) return;
    this.reading = want;
    if (want) {
      if (this.offSince !== null) this.offMs += this.now() - this.offSince;
      this.offSince = null;
      stdout?.resume();
    } else {
      this.offSince = this.now();
      stdout?.pause();
    }
  }

  /** Since when it has not been reading (null: it is), and for how long in all. */
  notReading(now = this.now()): { since: number | null; ms: number } {
    return {
      since: this.offSince,
      ms: this.offMs + (this.offSince === null ? 0 : now - this.offSince),
    };
  }
}
