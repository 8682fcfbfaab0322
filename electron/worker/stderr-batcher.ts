/**
 * stderr on its way to main, bounded at any rate and for any duration (HARDENING.md 6): the
 * child's chunks are gathered and posted as one transferred buffer STDERR_FLUSH_MS after the
 * first of them, or sooner past STDERR_FLUSH_BYTES, but never two within STDERR_GAP_MS; at most
 * STDERR_IN_FLIGHT batches are posted and not yet taken by main (main credits each back, like
 * frames: a MessagePort has no backpressure of its own). Meanwhile at most STDERR_HOLD_BYTES
 * wait here, the newest kept and the older dropped and counted. So main handles at most
 * HOLD / GAP of stderr a second however fast a server logs (more than its ring, its snapshots
 * and its traces keep), and stderr is always read: a server is never blocked on its logs.
 * What waits is copied into one ring of STDERR_HOLD_BYTES (reads come from one reused buffer,
 * read-channel.ts): a flood allocates a buffer per post, never per read.
 *
 * Owns: the ring and the flush timer (`dispose` clears it). Fed by: the child's stderr
 * and main's credits. Listens: the transport worker, through `post`.
 */
import type { Disposable } from '../../shared/lifecycle.js';
import { MIB } from '../../shared/units.js';

const STDERR_FLUSH_MS = 50;
const STDERR_FLUSH_BYTES = 64 * 1024;
/** The shortest time between two posts. */
export const STDERR_GAP_MS = 50;
/** Batches posted and not yet credited back. */
export const STDERR_IN_FLIGHT = 2;
/** Bytes held while main is behind (the size of main's stderr ring: what it could show). */
export const STDERR_HOLD_BYTES = MIB;

export class StderrBatcher implements Disposable {
  /** Bytes read from the child's stderr so far. */
  bytes = 0;
  /** Bytes dropped here: read while main was behind, past STDERR_HOLD_BYTES (the oldest). */
  droppedBytes = 0;
  /** The bytes waiting: `pending` of them, the oldest at `head`, wrapping around. */
  private readonly ring = Buffer.allocUnsafeSlow(STDERR_HOLD_BYTES);
  private head = 0;
  private pending = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastPostAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly post: (data: Uint8Array) => void,
    private readonly now: () => number,
  ) {}

  /** Takes a copy of `chunk` (it may be a view of a buffer the next read reuses). */
  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    this.store(chunk);
    if (this.pending >= STDERR_FLUSH_BYTES) this.flush();
    else this.flushIn(STDERR_FLUSH_MS);
  }

  private flushIn(ms: number): void {
    if (!this.timer) this.timer = setTimeout(() => this.flush(), ms);
  }

  /** Main took a batch: the next may go (what waits goes now if a flush was due). */
  credit(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.pending > 0 && !this.timer) this.flush();
  }

  /** Posts what is held, now, unless main has not taken the batches already posted (then once
   *  it credits one back), or the last post was under STDERR_GAP_MS ago (then at that time). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending === 0 || this.inFlight >= STDERR_IN_FLIGHT) return;
    const wait = this.lastPostAt + STDERR_GAP_MS - this.now();
    if (wait > 0) {
      this.flushIn(wait);
      return;
    }
    const data = new Uint8Array(this.pending);
    const first = Math.min(this.pending, STDERR_HOLD_BYTES - this.head);
    data.set(this.ring.subarray(this.head, this.head + first), 0);
    if (first < this.pending) data.set(this.ring.subarray(0, this.pending - first), first);
    this.head = 0;
    this.pending = 0;
    this.inFlight += 1;
    this.lastPostAt = this.now();
    this.post(data);
  }

  /** Posts what is held whatever main's credits (the worker is finishing: nothing after it). */
  flushFinal(): void {
    this.inFlight = 0;
    this.lastPostAt = Number.NEGATIVE_INFINITY;
    this.flush();
  }

  /** Copies `chunk` behind what waits; past the ring's size the oldest bytes give way. */
  private store(chunk: Uint8Array): void {
    const size = STDERR_HOLD_BYTES;
    let src = chunk;
    if (src.length >= size) {
      // Only its last `size` bytes can be kept: everything waiting and the rest give way.
      this.droppedBytes += this.pending + src.length - size;
      src = src.subarray(src.length - size);
      this.ring.set(src, 0);
      this.head = 0;
      this.pending = size;
      return;
    }
    const over = this.pending + src.length - size;
    if (over > 0) {
      this.head = (this.head + over) % size;
      this.pending -= over;
      this.droppedBytes += over;
    }
    const tail = (this.head + this.pending) % size;
    const first = Math.min(src.length, size - tail);
    this.ring.set(src.subarray(0, first), tail);
    if (first < src.length) this.ring.set(src.subarray(first), 0);
    this.pending += src.length;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
