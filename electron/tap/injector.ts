/**
 * Injector: Pipescope's own lines for the server's stdin (a cancellation sent from the app),
 * put between two of the host's lines, never inside one. Each line waits for the host's stream
 * to be at a line's end; it is written after the newline of the host's next chunk that has one.
 * Owns: the lines waiting. Fed by: the relay (the host's chunks, the worker's lines). Listens:
 * the worker, through `done` (each line's outcome, once).
 */
export class Injector {
  private atLineEnd = true;
  private readonly waiting: { seq: number; data: Uint8Array }[] = [];

  constructor(
    /** Writes to the server's stdin; `done` once the pipe took it (or failed). */
    private readonly write: (data: Uint8Array, done?: (e?: Error | null) => void) => void,
    /** Why nothing can be written now (null: it can). */
    private readonly blocked: () => string | null,
    private readonly done: (seq: number, waitedMs: number, error?: string) => void,
    private readonly now: () => number,
  ) {}

  /** One of the host's chunks, on its way to the server. */
  host(chunk: Buffer): void {
    if (this.waiting.length > 0 && !this.atLineEnd) {
      const nl = chunk.lastIndexOf(0x0a);
      if (nl !== -1) {
        this.write(chunk.subarray(0, nl + 1));
        this.atLineEnd = true;
        this.flush();
        if (nl + 1 < chunk.length) this.write(chunk.subarray(nl + 1));
        this.atLineEnd = chunk[chunk.length - 1] === 0x0a;
        return;
      }
    }
    this.write(chunk);
    this.atLineEnd = chunk[chunk.length - 1] === 0x0a;
  }

  /** A line of Pipescope's (with its newline). */
  line(seq: number, data: Uint8Array): void {
    this.waiting.push({ seq, data });
    if (this.atLineEnd) this.flush();
  }

  /** The server is gone: lines still waiting will never be written. */
  fail(error: string): void {
    for (const { seq } of this.waiting.splice(0)) this.done(seq, 0, error);
  }

  private flush(): void {
    for (const { seq, data } of this.waiting.splice(0)) {
      const why = this.blocked();
      if (why !== null) {
        this.done(seq, 0, why);
        continue;
      }
      const at = this.now();
      this.write(data, (e) => this.done(seq, this.now() - at, e ? e.message : undefined));
    }
  }
}
