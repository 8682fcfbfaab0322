/**
 * Outbox: frames waiting to cross from the transport worker to main.
 *
 * Owns: the bounded spill (frames complete but not yet posted), the credit balance and the
 * dispatcher-wait clock. Fed by: the framer (via `add`). Listens: `post` sends one batch to
 * main; `onOverload` applies the session's overload policy when the spill is full.
 *
 * MessagePort has no backpressure, so frames are posted only against credits that main returns
 * as its dispatcher consumes them. While out of credits the reader keeps draining into the spill
 * and the wait is timed: that is the dispatcher wait time of DESIGN.md.
 */
import type { FrameMeta } from '../engine/worker-protocol.js';

/** Frames at least this large travel in their own transferred ArrayBuffer, never copied. */
const OWN_BUFFER_BYTES = 256 * 1024;
/** Upper bound of one batch's copied bytes (small frames). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Upper bound of frames in one batch. */
const BATCH_FRAMES = 8192;

export interface SpilledFrame {
  meta: FrameMeta;
  data: Buffer;
}

export interface OutboxOptions {
  creditFrames: number;
  creditBytes: number;
  spillMaxBytes: number;
  now(): number;
  post(metas: FrameMeta[], buffer: ArrayBuffer, big: ArrayBuffer[]): void;
  /** The spill is full; returns whether to keep this frame (true only for `pause`). */
  onOverload(): boolean;
}

export class Outbox {
  private readonly spill: SpilledFrame[] = [];
  private spillHead = 0;
  private availFrames: number;
  private availBytes: number;
  spillBytes = 0;
  maxSpillFrames = 0;
  droppedFrames = 0;
  droppedBytes = 0;
  waitMs = 0;
  longestWaitMs = 0;
  private waitingSince: number | null = null;

  constructor(private readonly opts: OutboxOptions) {
    this.availFrames = opts.creditFrames;
    this.availBytes = opts.creditBytes;
  }

  get spillFrames(): number {
    return this.spill.length - this.spillHead;
  }

  /** Frames posted to main and not yet credited back. */
  get outstandingFrames(): number {
    return this.opts.creditFrames - this.availFrames;
  }

  /** Whether anything is spilled or unacknowledged (naive reader mode waits for this). */
  get busy(): boolean {
    return this.spillFrames > 0 || this.outstandingFrames > 0;
  }

  /** Current wait episode included. */
  currentWaitMs(): number {
    return this.waitMs + (this.waitingSince === null ? 0 : this.opts.now() - this.waitingSince);
  }

  currentLongestWaitMs(): number {
    const ongoing = this.waitingSince === null ? 0 : this.opts.now() - this.waitingSince;
    return Math.max(this.longestWaitMs, ongoing);
  }

  add(meta: FrameMeta, frame: Buffer): void {
    if (this.spillBytes + frame.length > this.opts.spillMaxBytes && this.spillFrames > 0) {
      if (!this.opts.onOverload()) {
        this.droppedFrames += 1;
        this.droppedBytes += frame.length;
        return;
      }
    }
    this.spill.push({ meta, data: frame });
    this.spillBytes += frame.length;
    if (this.spillFrames > this.maxSpillFrames) this.maxSpillFrames = this.spillFrames;
  }

  credit(frames: number, bytes: number): void {
    if (this.availFrames === Number.POSITIVE_INFINITY) return;
    this.availFrames = Math.min(this.opts.creditFrames, this.availFrames + frames);
    this.availBytes = Math.min(this.opts.creditBytes, this.availBytes + bytes);
  }

  /** Final flush at stop: everything spilled goes, credits or not (nothing lost silently). */
  releaseAll(): void {
    this.availFrames = Number.POSITIVE_INFINITY;
    this.availBytes = Number.POSITIVE_INFINITY;
    this.flush();
  }

  /** Posts as many spilled frames as credits allow, in batches. */
  flush(): void {
    while (this.spillFrames > 0) {
      const first = this.spill[this.spillHead];
      const nothingOutstanding = this.outstandingFrames === 0;
      // A frame bigger than the whole byte credit may go alone, or the session would deadlock.
      const fits =
        this.availFrames > 0 && (first.data.length <= this.availBytes || nothingOutstanding);
      if (!fits) {
        if (this.waitingSince === null) this.waitingSince = this.opts.now();
        return;
      }
      this.endWait();
      this.postBatch();
    }
    this.endWait();
    if (this.spillHead > 0 && this.spillHead === this.spill.length) {
      this.spill.length = 0;
      this.spillHead = 0;
    }
  }

  private endWait(): void {
    if (this.waitingSince === null) return;
    const waited = this.opts.now() - this.waitingSince;
    this.waitMs += waited;
    if (waited > this.longestWaitMs) this.longestWaitMs = waited;
    this.waitingSince = null;
  }

  private postBatch(): void {
    const picked: SpilledFrame[] = [];
    let copyBytes = 0;
    while (this.spillFrames > 0 && picked.length < BATCH_FRAMES && this.availFrames > 0) {
      const f = this.spill[this.spillHead];
      const len = f.data.length;
      const alone = picked.length === 0 && this.outstandingFrames === 0;
      if (len > this.availBytes && !alone) break;
      const own = len >= OWN_BUFFER_BYTES;
      if (!own && copyBytes + len > BATCH_BYTES && picked.length > 0) break;
      this.spillHead += 1;
      this.spillBytes -= len;
      this.availFrames -= 1;
      this.availBytes -= len;
      if (!own) copyBytes += len;
      picked.push(f);
    }
    const buffer = new ArrayBuffer(copyBytes);
    const view = new Uint8Array(buffer);
    const big: ArrayBuffer[] = [];
    const metas: FrameMeta[] = [];
    let at = 0;
    for (const f of picked) {
      const len = f.data.length;
      if (len >= OWN_BUFFER_BYTES) {
        f.meta.start = -1 - big.length;
        big.push(ownArrayBuffer(f.data));
      } else {
        view.set(f.data, at);
        f.meta.start = at;
        at += len;
      }
      metas.push(f.meta);
    }
    this.opts.post(metas, buffer, big);
  }
}

/** An ArrayBuffer holding exactly these bytes that may be transferred (copied only if shared). */
function ownArrayBuffer(data: Buffer): ArrayBuffer {
  const ab = data.buffer;
  // The framer assembles large frames in their own buffer; a stripped \r leaves one spare byte
  // at the end, which main ignores (it slices by the frame's length).
  if (ab instanceof ArrayBuffer && data.byteOffset === 0 && ab.byteLength - data.byteLength <= 1) {
    return ab;
  }
  const copy = new ArrayBuffer(data.length);
  new Uint8Array(copy).set(data);
  return copy;
}
