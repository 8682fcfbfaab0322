/**
 * stderr read slowly on purpose: `pipescope check`'s stderr case plays a host that reads its
 * server's logs at a trickle. After each read of n bytes the stream is paused for n / rate
 * seconds. Without a rate (the default) stderr is read as fast as the server writes it
 * (HARDENING.md 6): this is an explicit mode, like the stdout reader's `paused`.
 *
 * Owns: its resume timer (`dispose` clears it). Fed by: the transport worker (each stderr read,
 * main's `stderr-pace` message, the stop, which reads at full speed again). Listens: nothing.
 */
import type { Readable } from 'node:stream';
import type { Disposable } from '../../shared/lifecycle.js';

export class StderrPace implements Disposable {
  private rate: number | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** `stream`: the server's stderr as the worker reads it (none yet, or in tap mode: no-op). */
  constructor(private readonly stream: () => Readable | undefined) {}

  /** Bytes a second to read at most; null: as fast as the server writes (resumes at once). */
  set(bytesPerSecond: number | null): void {
    this.rate = bytesPerSecond !== null && bytesPerSecond > 0 ? bytesPerSecond : null;
    if (this.rate === null) this.resume();
  }

  /** A read of `n` bytes was taken: wait as long as that many bytes take at the rate. */
  took(n: number): void {
    const s = this.stream();
    if (this.rate === null || s === undefined || n === 0 || this.timer !== null) return;
    s.pause();
    this.timer = setTimeout(
      () => {
        this.timer = null;
        s.resume();
      },
      Math.ceil((n * 1000) / this.rate),
    );
  }

  private resume(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.stream()?.resume();
  }

  dispose(): void {
    this.rate = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
