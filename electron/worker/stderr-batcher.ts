/**
 * stderr on its way to main: the child's chunks gathered and posted at most every
 * STDERR_FLUSH_MS, or at once past STDERR_FLUSH_BYTES, as one transferred buffer. Owns: the
 * chunks held and the flush timer (`dispose` clears it). Fed by: the child's stderr. Listens:
 * the transport worker, through `post`.
 */
import type { Disposable } from '../../shared/lifecycle.js';

const STDERR_FLUSH_MS = 50;
const STDERR_FLUSH_BYTES = 64 * 1024;

export class StderrBatcher implements Disposable {
  /** Bytes read from the child's stderr so far. */
  bytes = 0;
  private chunks: Buffer[] = [];
  private pending = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly post: (data: Uint8Array) => void) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.chunks.push(chunk);
    this.pending += chunk.length;
    if (this.pending >= STDERR_FLUSH_BYTES) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), STDERR_FLUSH_MS);
  }

  /** Posts what is held, now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending === 0) return;
    const data = new Uint8Array(this.pending);
    let at = 0;
    for (const c of this.chunks) {
      data.set(c, at);
      at += c.length;
    }
    this.chunks = [];
    this.pending = 0;
    this.post(data);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
