/**
 * Dispatcher: the host's application queue of complete messages (DESIGN.md "Background").
 *
 * Owns: the queue of frames main has received from the worker and not yet consumed, and the
 * simulated consumer delay. Fed by: the Transport's frame batches. Listens: `consume` (the
 * Session's router) for each frame, and `credit`, which returns credits to the worker as frames
 * are consumed. The queue is bounded by the worker's credit limit: it can never hold more than
 * the worker was allowed to post.
 *
 * Measures the **queue wait**: how long a complete message waited between its arrival (its
 * last byte read by the worker, so time in the worker's spill counts) and the consumer taking
 * it. That is what a host's agent feels; the reader's wait for credits (the report's
 * dispatcher wait) only grows once the worker's spill is full as well.
 */
import type { Frame } from '../transport/transport.js';

export interface DispatcherOptions {
  consume(frame: Frame): void;
  credit(frames: number, bytes: number): void;
  delayMs: number;
  /** The session clock (frames carry their arrival time on it). */
  now?(): number;
  onError?(e: unknown): void;
}

export class Dispatcher {
  private queue: Frame[] = [];
  private qHead = 0;
  private timer: NodeJS.Timeout | null = null;
  private delayMs: number;
  private stopped = false;
  maxDepth = 0;
  consumed = 0;
  consumeErrors = 0;
  /** Longest queue wait of a message taken so far (ms). */
  longestWaitMs = 0;

  constructor(private readonly opts: DispatcherOptions) {
    this.delayMs = opts.delayMs;
  }

  get depth(): number {
    return this.queue.length - this.qHead;
  }

  /** Arrival time (session clock) of the oldest frame still waiting, or null when empty. */
  oldestArrival(): number | null {
    return this.depth > 0 ? this.queue[this.qHead].t : null;
  }

  /** The queue wait at `now`: the oldest message's, and the longest a message waited. */
  waits(now: number): { queueWaitMs: number; queueLongestWaitMs: number } {
    const oldest = this.oldestArrival();
    return {
      queueWaitMs: oldest === null ? 0 : Math.max(0, now - oldest),
      queueLongestWaitMs: this.longestWaitMs,
    };
  }

  /** Whether a response with this id waits in the queue (the host has not taken it yet). */
  holdsResponse(id: string | number): boolean {
    for (let i = this.qHead; i < this.queue.length; i++) {
      const f = this.queue[i];
      if (f.kind === 'response' && f.id === id) return true;
    }
    return false;
  }

  setDelay(ms: number): void {
    this.delayMs = Math.max(0, ms);
    if (this.delayMs === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.drainNow();
    }
  }

  enqueue(frames: Frame[]): void {
    if (this.stopped) return;
    for (const f of frames) this.queue.push(f);
    if (this.depth > this.maxDepth) this.maxDepth = this.depth;
    if (this.delayMs === 0) this.drainNow();
    else this.schedule();
  }

  /** Notes the wait of the message about to be taken (the oldest queued). */
  private noteWait(): void {
    if (this.opts.now === undefined || this.depth === 0) return;
    const waited = this.opts.now() - this.queue[this.qHead].t;
    if (waited > this.longestWaitMs) this.longestWaitMs = waited;
  }

  /** Consumes everything queued now and returns the credits in one message. */
  private drainNow(): void {
    let frames = 0;
    let bytes = 0;
    // Frames queue in arrival order: the first one waited longest (one clock read a drain).
    this.noteWait();
    while (this.depth > 0 && !this.stopped) {
      const f = this.take();
      frames += 1;
      bytes += f.bytes;
      this.consumeSafely(f);
    }
    this.compact();
    if (frames > 0) this.opts.credit(frames, bytes);
  }

  /** A consumer that throws must not cost the worker its credits (it would stall the pipe). */
  private consumeSafely(f: Frame): void {
    try {
      this.opts.consume(f);
    } catch (e) {
      this.consumeErrors += 1;
      this.opts.onError?.(e);
    }
  }

  private take(): Frame {
    const f = this.queue[this.qHead];
    this.queue[this.qHead] = undefined as unknown as Frame; // release the frame's bytes early
    this.qHead += 1;
    this.consumed += 1;
    return f;
  }

  private compact(): void {
    if (this.qHead === this.queue.length) {
      this.queue = [];
      this.qHead = 0;
    }
  }

  /** A slow consumer: one message per `delayMs`, credits returned as each is taken. */
  private schedule(): void {
    if (this.timer || this.depth === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stopped || this.depth === 0) return;
      this.noteWait();
      const f = this.take();
      this.consumeSafely(f);
      this.opts.credit(1, f.bytes);
      this.compact();
      if (this.delayMs === 0) this.drainNow();
      else this.schedule();
    }, this.delayMs);
  }

  /** Consumes what is left at once (used when the session stops: nothing is lost silently). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.drainNow();
  }

  stop(): void {
    this.flush();
    this.stopped = true;
  }
}
