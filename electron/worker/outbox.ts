/**
 * Outbox: frames waiting to cross from the transport worker to main.
 *
 * Owns: the bounded spill (frames complete but not yet posted, in batches), the credit balance
 * and the dispatcher-wait clock. Fed by: the line splitter's sink in the worker (`addLine`,
 * `addSpanning`). Listens: `post` sends one batch to main; `onOverload` applies the session's
 * overload policy when the spill is full; `onSeal` lets the owner of a line still arriving copy
 * what it needs from a chunk that now belongs to a batch.
 *
 * MessagePort has no backpressure, so frames are posted only against credits that main returns
 * as its dispatcher consumes them. While out of credits the reader keeps draining into the spill
 * and the wait is timed: that is the dispatcher wait time of DESIGN.md.
 *
 * Zero copy: a batch carries the very pipe chunks its frames lie in, transferred (or, read into
 * a shared slab, as views main sees in the same memory), and each frame's position in them (as
 * if the chunks were one run of bytes). A 64 MiB frame is its
 * 1024 chunks; 300 small frames of one chunk are that chunk. Nothing is joined or copied on the
 * way to main, except when credits cut a batch in two (only with nothing in flight: the chunk
 * both halves need is copied for the second), for a line still arriving whose first chunk
 * leaves with a batch (`onSeal`), and for a batch of many small chunks (a server writing a line
 * per write), which goes packed into one buffer (`packed`). (A short line that crossed reads
 * comes here already joined by the stdout reader, as a chunk of its own.)
 * Each chunk belongs to one batch: a batch is only sealed between chunks.
 */
import type { EncodedMetas, FrameMeta, LineRows, MetaBuffers } from '../wire/columns.js';
import { SPILL_MAX_FRAMES, type WireBuffer } from '../wire/protocol.js';
import { MetaColumns } from './meta-columns.js';
import { Batch, splitBatch, toWire } from './outbox-batch.js';

/** A batch takes no more frames once it has this many (checked between chunks). */
const BATCH_FRAMES = 8192;
/** ...or once its chunks hold this many bytes (a large frame makes a batch of its own). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Columns kept for reuse (batches queued for credits each hold their own). */
const SPARE_COLUMNS = 4;

/** What classification says about a frame (its position is given apart). */
export type FrameInfo = Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't'>;

export interface PostedBatch {
  /** Frame i is `bytes` bytes at position `start` of the buffers taken as one run of bytes. */
  metas: EncodedMetas;
  buffers: WireBuffer[];
  /** With views of slabs only: each buffer's slab (slabs.ts; 0 for an ArrayBuffer). */
  slabs?: number[];
  /** Every ArrayBuffer above (and the metadata columns), once each: the transfer list. */
  transfer: ArrayBuffer[];
}

/** A chunk piece of a line that spans chunks: chunk[start, end). */
export interface Piece {
  chunk: Buffer;
  start: number;
  end: number;
}

export interface OutboxOptions {
  creditFrames: number;
  creditBytes: number;
  spillMaxBytes: number;
  now(): number;
  post(batch: PostedBatch): void;
  /** The spill is full; returns whether to keep this frame (true only for `pause`). */
  onOverload(): boolean;
  /** `chunk` now belongs to a sealed batch and will leave the thread with it. */
  onSeal?(chunk: Buffer): void;
  /** Chunks under this size on average travel packed into one buffer (0: never; tests that
   *  check each chunk is transferred, detached, exactly once set it). */
  packBelow?: number;
}

export class Outbox {
  /** Sealed batches waiting for credits, oldest first. */
  private readonly queue: Batch[] = [];
  private open: Batch | null = null;
  /** Columns of posted batches, reused (their contents were copied out by `take`): a batch's
   *  columns are sized for a full batch once, not grown from small for every batch. */
  private readonly spareCols: MetaColumns[] = [];
  /** Buffers of posted batches' columns that main has read and handed back (`recycle`). */
  private readonly spareMeta: MetaBuffers[] = [];
  private availFrames: number;
  private availBytes: number;
  spillFrames = 0;
  spillBytes = 0;
  maxSpillFrames = 0;
  droppedFrames = 0;
  droppedBytes = 0;
  waitMs = 0;
  longestWaitMs = 0;
  private waitingSince: number | null = null;

  /**
   * Frames a batch takes before it is sealed (between chunks): at most a quarter of the frame
   * credit, so that batches in flight leave room for the next whole one. Credits come back a
   * batch at a time; a batch bigger than what is left waits (see `fitting`): with 8192 credits
   * and 8192-frame batches, a flood of small frames would post one batch at a time.
   */
  private readonly batchFrames: number;

  constructor(private readonly opts: OutboxOptions) {
    this.availFrames = opts.creditFrames;
    this.availBytes = opts.creditBytes;
    this.batchFrames = Math.max(1, Math.min(BATCH_FRAMES, Math.floor(opts.creditFrames / 4)));
  }

  /** Frames posted to main and not yet credited back. */
  get outstandingFrames(): number {
    return this.opts.creditFrames - this.availFrames;
  }

  /** Whether a flush has anything to do (frames open or queued, or a wait to end). */
  get holding(): boolean {
    return this.open !== null || this.queue.length > 0 || this.waitingSince !== null;
  }

  /** Whether a sealed batch waits that the credits would let go now. */
  get readyToPost(): boolean {
    return this.queue.length > 0 && this.fitting(this.queue[0]) > 0;
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

  /** Whether the spill has drained to half its bounds (an overload episode is over). */
  get belowHalf(): boolean {
    return (
      this.spillBytes <= this.opts.spillMaxBytes / 2 && this.spillFrames <= SPILL_MAX_FRAMES / 2
    );
  }

  /** Whether `frames` frames of `bytes` in all would pass the spill's bounds. */
  private over(bytes: number, frames: number): boolean {
    return (
      this.spillBytes + bytes > this.opts.spillMaxBytes ||
      this.spillFrames + frames > SPILL_MAX_FRAMES
    );
  }

  /** Whether a frame of `bytes` may enter the spill (else it was dropped, and counted). An
   *  empty spill takes any one frame. */
  private admit(bytes: number): boolean {
    if (this.spillFrames > 0 && this.over(bytes, 1)) {
      if (!this.opts.onOverload()) {
        this.droppedFrames += 1;
        this.droppedBytes += bytes;
        return false;
      }
    }
    this.spillFrames += 1;
    this.spillBytes += bytes;
    if (this.spillFrames > this.maxSpillFrames) this.maxSpillFrames = this.spillFrames;
    return true;
  }

  /** The open batch for a frame starting in `chunk` (a full batch is sealed first, but never
   *  while it ends with this chunk: a chunk belongs to one batch). */
  private batchFor(chunk: Buffer): Batch {
    let b = this.open;
    if (b !== null && b.last !== chunk && this.full(b)) {
      this.seal();
      b = null;
    }
    if (b === null) {
      // A batch is sealed once it holds batchFrames, at the end of a chunk: room for one more
      // chunk's worth of small lines beyond that, growing only past it.
      const cols = this.spareCols.pop() ?? new MetaColumns(this.batchFrames + 1024);
      cols.reset();
      b = new Batch(cols);
      this.open = b;
    }
    return b;
  }

  /**
   * The end of a pipe chunk: a full batch is sealed here. (batchFor seals only before a frame
   * that starts in a chunk of its own, and in a stream of small lines nearly every chunk begins
   * with the end of a line from the one before, so batches grew until a flush, past the credits
   * at times — 8,727 frames against 8,192 — and were cut, a chunk copied, to fit.) The line
   * still arriving, if it began in the batch's last chunk, gets its part copied by `onSeal`.
   */
  chunkDone(): void {
    if (this.open !== null && this.full(this.open)) this.seal();
  }

  /** A batch takes no more frames once sealed: full by frames or by bytes. */
  private full(b: Batch): boolean {
    return b.n >= this.batchFrames || b.size >= BATCH_BYTES;
  }

  /** A line that lies whole in one chunk: chunk[start, end). `info` null: a plain response
   *  with the numeric id `id` (the classifier's allocation-free answer for the bulk). */
  addLine(
    info: FrameInfo | null,
    chunk: Buffer,
    start: number,
    end: number,
    offset: number,
    t: number,
    id = 0,
  ): void {
    const bytes = end - start;
    if (!this.admit(bytes)) return;
    const b = this.batchFor(chunk);
    b.bytes += bytes;
    if (info === null) b.cols.pushResponse(id, offset, bytes, b.base(chunk) + start, t);
    else b.cols.push(info, offset, bytes, b.base(chunk) + start, t);
  }

  /**
   * Plain responses lying whole in `chunk`, rows [r0, r1) of `rows` (`bytes`: their lengths
   * summed; line r's stream offset is `offsetDelta + rows.startAt(r)`): addLine for a run, in one
   * step while the spill has room for all of them.
   */
  addResponses(
    chunk: Buffer,
    rows: LineRows,
    r0: number,
    r1: number,
    bytes: number,
    offsetDelta: number,
    t: number,
  ): void {
    const k = r1 - r0;
    if (this.over(bytes, k)) {
      // The spill fills up inside the run: frame by frame, so the overload policy sees each.
      for (let r = r0; r < r1; r++) {
        const start = rows.startAt(r);
        this.addLine(null, chunk, start, rows.endAt(r), offsetDelta + start, t, rows.idAt(r));
      }
      return;
    }
    this.spillFrames += k;
    this.spillBytes += bytes;
    if (this.spillFrames > this.maxSpillFrames) this.maxSpillFrames = this.spillFrames;
    const b = this.batchFor(chunk);
    b.bytes += bytes;
    b.cols.pushResponses(rows, r0, r1, { offsetDelta, base: b.base(chunk), t });
  }

  /** A line that arrived over several chunks: `bytes` bytes through `pieces`, in order (the
   *  first piece may start inside its chunk; the others start at 0). */
  addSpanning(
    info: FrameInfo,
    pieces: readonly Piece[],
    bytes: number,
    offset: number,
    t: number,
  ): void {
    if (pieces.length === 0 || !this.admit(bytes)) return;
    const b = this.batchFor(pieces[0].chunk);
    const start = b.base(pieces[0].chunk) + pieces[0].start;
    for (let i = 1; i < pieces.length; i++) b.base(pieces[i].chunk);
    b.bytes += bytes;
    b.cols.push(info, offset, bytes, start, t);
  }

  /** Keeps full-size columns for the next batches (smaller ones — a split batch's — go). */
  private spare(cols: MetaColumns): void {
    if (cols.capacity >= this.batchFrames && this.spareCols.length < SPARE_COLUMNS) {
      cols.reset(); // what it carried (extras, method names) is not kept while it waits
      this.spareCols.push(cols);
    }
  }

  private seal(): void {
    const b = this.open;
    this.open = null;
    if (b === null || b.n === 0) {
      if (b !== null) this.spare(b.cols);
      return;
    }
    // Only the last chunk can hold the start of a line still arriving.
    const last = b.last;
    if (last) this.opts.onSeal?.(last);
    // A batch sealed small behind others (a server writing a line per read, flushed each time,
    // while main is out of credits) waits with columns of its own size: a full batch's columns
    // per queued frame would be ~120 KB each, memory the spill bound (frame bytes) does not see.
    // (The head of the queue, usually posted at once, keeps its columns: no copy for it.)
    if (this.queue.length > 0 && b.cols.capacity > 2 * b.n + 64) {
      const full = b.cols;
      b.cols = full.slice();
      this.spare(full);
    }
    this.queue.push(b);
  }

  /** Column buffers main has done with (they came with credits): the next batches' metadata
   *  is written into them. */
  recycle(spare: readonly MetaBuffers[]): void {
    for (const m of spare) if (this.spareMeta.length < SPARE_COLUMNS) this.spareMeta.push(m);
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

  /** Posts as many spilled frames as credits allow, in batches. Call between chunks. */
  flush(): void {
    this.seal();
    while (this.queue.length > 0) {
      const head = this.queue[0];
      const k = this.fitting(head);
      if (k === 0) {
        // Out of credits — not even the first frame fits — is the dispatcher wait; holding a
        // batch that will fit whole once those in flight are back is batching, not waiting.
        if (!this.fitsFirst(head)) this.waitingSince ??= this.opts.now();
        else this.endWait();
        return;
      }
      this.endWait();
      if (k === head.n) {
        this.queue.shift();
        this.post(head.cols.take(0, head.n, this.spareMeta.pop()), head.buffers, head.bytes);
        this.spare(head.cols);
      } else {
        this.queue[0] = this.split(head, k);
      }
    }
    this.endWait();
  }

  /**
   * How many of the batch's first frames go now. A batch goes whole when the credits allow it.
   * One that does not fit now but would within the whole credit is held until the batches in
   * flight are credited back (cutting it would cost a copy of the chunk the halves share and a
   * message more, each time a flood outruns main for a moment; main still holds those in
   * flight, so it never starves). A batch larger than the whole credit is cut to what fits. A
   * frame larger than the whole byte credit goes alone when nothing is outstanding, or the
   * session would deadlock.
   */
  private fitting(b: Batch): number {
    if (this.availFrames === Number.POSITIVE_INFINITY) return b.n;
    if (b.n <= this.availFrames && b.bytes <= this.availBytes) return b.n;
    const fitsWhole = b.n <= this.opts.creditFrames && b.bytes <= this.opts.creditBytes;
    if (fitsWhole && this.outstandingFrames > 0) return 0;
    let k = 0;
    let bytes = 0;
    while (k < b.n && k < this.availFrames) {
      const len = b.cols.bytes(k);
      if (bytes + len > this.availBytes) break;
      bytes += len;
      k += 1;
    }
    if (k === 0 && this.outstandingFrames === 0) k = 1;
    return k;
  }

  /** Whether the credits would let the batch's first frame go now. */
  private fitsFirst(b: Batch): boolean {
    return this.availFrames >= 1 && b.cols.bytes(0) <= this.availBytes;
  }

  private endWait(): void {
    if (this.waitingSince === null) return;
    const waited = this.opts.now() - this.waitingSince;
    this.waitMs += waited;
    if (waited > this.longestWaitMs) this.longestWaitMs = waited;
    this.waitingSince = null;
  }

  /** Posts the first k frames of `b` and returns the rest as a batch of its own. */
  private split(b: Batch, k: number): Batch {
    const { rest, headBuffers, headBytes } = splitBatch(b, k);
    this.post(b.cols.take(0, k), headBuffers, headBytes);
    return rest;
  }

  private post(metas: EncodedMetas, buffers: WireBuffer[], bytes: number): void {
    this.spillFrames -= metas.n;
    this.spillBytes -= bytes;
    this.availFrames -= metas.n;
    this.availBytes -= bytes;
    const wire = toWire(buffers, this.opts.packBelow);
    wire.transfer.push(metas.num.buffer as ArrayBuffer, metas.kinds.buffer as ArrayBuffer);
    this.opts.post({ metas, ...wire });
  }
}
