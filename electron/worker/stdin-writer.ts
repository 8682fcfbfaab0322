/**
 * Writes to the server's stdin, one message a write, respecting backpressure (HARDENING.md 5):
 * a write that returns false starts a wait, ended by 'drain'; the time waited is counted.
 * EPIPE (the server closed its stdin or exited) makes later writes fail fast (HARDENING.md 19).
 * Owns: its counters. Fed by: main's `write` messages. Listens: main, through `done`.
 */
import type { Writable } from 'node:stream';

export class StdinWriter {
  bytes = 0;
  closed = false;
  pendingSince: number | null = null;
  private waitedMs = 0;
  private stdin: Writable | null = null;

  constructor(
    private readonly now: () => number,
    private readonly done: (seq: number, waitedMs: number, error?: string) => void,
  ) {}

  /** Writes go to `stdin` from now on. */
  attach(stdin: Writable): void {
    this.stdin = stdin;
    stdin.on('error', () => {
      this.closed = true;
      this.endWait();
    });
    stdin.on('drain', () => this.endWait());
  }

  write(seq: number, data: Uint8Array): void {
    const startedAt = this.now();
    const stdin = this.stdin;
    if (!stdin || this.closed || stdin.destroyed || !stdin.writable) {
      this.done(seq, 0, 'server closed stdin');
      return;
    }
    const ok = stdin.write(data, (e) => {
      if (e) {
        this.closed = true;
        this.done(seq, this.now() - startedAt, e.message);
        return;
      }
      this.bytes += data.length;
      this.done(seq, this.now() - startedAt);
    });
    if (!ok && this.pendingSince === null) this.pendingSince = this.now();
  }

  /** Total ms writes waited for drain, the current wait included. */
  waitMs(): number {
    return this.waitedMs + (this.pendingSince === null ? 0 : this.now() - this.pendingSince);
  }

  /** Bytes written and not yet taken by the pipe. */
  pendingBytes(): number {
    return this.stdin?.writableLength ?? 0;
  }

  private endWait(): void {
    if (this.pendingSince === null) return;
    this.waitedMs += this.now() - this.pendingSince;
    this.pendingSince = null;
  }
}
