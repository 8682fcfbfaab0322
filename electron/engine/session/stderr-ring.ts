/**
 * Stderr ring: the server's logs, bounded (HARDENING.md 6). stderr is logs, not errors.
 *
 * Owns: the most recent `maxBytes` of stderr as chunks. Fed by: the transport's stderr batches.
 * Listens: hosts showing a stderr panel and the trace recorder. Dropped bytes are counted.
 */

export interface StderrChunk {
  t: number;
  text: string;
}

export class StderrRing {
  private chunks: StderrChunk[] = [];
  /** Raw bytes received for each chunk: the decoded text's UTF-8 length differs (U+FFFD is 3
   * bytes for 1 invalid byte; a split character moves to the next chunk), so counting the text
   * would let the bound drift and the ring grow without limit. */
  private sizes: number[] = [];
  private bytes = 0;
  droppedBytes = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  constructor(private readonly maxBytes = 1024 * 1024) {}

  /** Adds a chunk; invalid UTF-8 is replaced, never an error. Returns the decoded text. */
  push(data: Buffer, t: number): string {
    let slice = data;
    if (slice.length > this.maxBytes) {
      this.droppedBytes += slice.length - this.maxBytes;
      slice = slice.subarray(slice.length - this.maxBytes);
    }
    const text = this.decoder.decode(slice, { stream: true });
    this.chunks.push({ t, text });
    this.sizes.push(slice.length);
    this.bytes += slice.length;
    while (this.bytes > this.maxBytes && this.chunks.length > 1) {
      this.chunks.shift();
      const n = this.sizes.shift() ?? 0;
      this.bytes -= n;
      this.droppedBytes += n;
    }
    return text;
  }

  all(): StderrChunk[] {
    return this.chunks.slice();
  }

  text(): string {
    return this.chunks.map((c) => c.text).join('');
  }

  /** The last `n` lines (for reports). */
  tailLines(n: number): string[] {
    const lines = this.text().split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-n);
  }
}
