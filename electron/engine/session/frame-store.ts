/**
 * Frame store: what the session saw on the wire, bounded.
 *
 * Owns: a summary for each recent frame (both directions) and the full bytes of the most
 * recent ones, within a byte budget. Fed by: the Session's dispatcher (incoming) and its
 * writer (outgoing). Listens: hosts that page through a frame (a 64 MiB frame is never handed
 * out whole) and the trace recorder.
 *
 * Bounded twice: at most `maxSummaries` summaries (oldest evicted, counted) and at most
 * `maxBytes` of memory held for frame bytes — the buffers they lie in, each counted once (oldest
 * bytes dropped first, summary kept and marked).
 */
import { createHash } from 'node:crypto';
import type { FrameSummary } from '../../../shared/frames.js';
import { bufferView, ChunkedBytes, type FrameBytes, updateHash } from '../transport/frame-bytes.js';
import { InFrame } from '../transport/in-frame.js';

export type { FrameDirection, FrameSummary } from '../../../shared/frames.js';

/** A page of raw bytes (hosts turn it into the shared FramePage). */
export interface RawFramePage {
  seq: number;
  offset: number;
  length: number;
  totalBytes: number;
  data: Buffer;
}

const PREVIEW_BYTES = 240;

function previewText(data: FrameBytes): string {
  return data.toString('utf8', 0, PREVIEW_BYTES); // a Buffer decodes it in place, no view
}

/**
 * One frame. While its bytes are held they are `cut`, or — a frame main received inside one
 * transferred chunk — summary.bytes bytes of that chunk (`buf`) from `at`, cut when asked.
 */
interface Stored {
  summary: FrameSummary;
  cut: FrameBytes | null;
  buf: ArrayBufferLike | null;
  at: number;
}

const NO_BYTES = Buffer.alloc(0);

/** `b` in memory of its own (Buffer.from would copy a small one into Node's shared pool). */
function ownCopy(b: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(b.length);
  b.copy(copy);
  return copy;
}

function bytesOf(s: Stored): FrameBytes | null {
  return s.cut ?? (s.buf === null ? null : bufferView(s.buf, s.at, s.summary.bytes));
}

export class FrameStore {
  private readonly items: Stored[] = [];
  private head = 0;
  /** Index of the oldest item that may still hold bytes (bytes are dropped oldest first). */
  private dataCursor = 0;
  private nextSeq = 1;
  /**
   * The memory the held frames keep alive: each buffer they lie in, counted once however many
   * frames it holds (`pins`: frames per buffer, and its size when first held). Frames main
   * received lie in the chunks they were transferred in, hundreds of small frames to a chunk:
   * the store keeps the chunk, not a copy of each frame (a Buffer each was a large part of
   * main's time in a notification flood).
   */
  heldBytes = 0;
  private readonly pins = new Map<ArrayBufferLike, { frames: number; size: number }>();
  evictedSummaries = 0;
  /** Frame bytes (not buffer bytes, as heldBytes) dropped for the budget or with evicted
   *  summaries. */
  droppedBytes = 0;

  constructor(
    private readonly maxBytes = 256 * 1024 * 1024,
    private readonly maxSummaries = 50_000,
  ) {}

  /** Stores a frame: `data` is its bytes, or a frame as main received it (its bytes located). */
  add(
    info: Omit<FrameSummary, 'seq' | 'preview' | 'held' | 'bytes'>,
    data: FrameBytes | InFrame,
  ): FrameSummary {
    const located = data instanceof InFrame;
    // Explicit fields, not `...info`: one stable object shape; the spread made each summary a
    // slow (dictionary-mode) object and add() several times slower.
    const summary: FrameSummary = {
      dir: info.dir,
      t: info.t,
      offset: info.offset,
      kind: info.kind,
      id: info.id,
      method: info.method,
      problem: info.problem,
      seq: this.nextSeq++,
      bytes: located ? data.bytes : data.length,
      preview: '', // decoded when asked for (previewOf) or before the bytes go
      held: false,
    };
    const s: Stored = { summary, cut: null, buf: null, at: 0 };
    this.items.push(s);
    // A frame whose memory is larger than the whole budget is never held (it would push out
    // every other frame, then itself): its preview now.
    if (summary.bytes > this.maxBytes) summary.preview = previewText(located ? data.data : data);
    else {
      this.hold(s, data);
      if (this.tooLargeToHold(s)) {
        summary.preview = previewText(bytesOf(s) as FrameBytes);
        s.cut = null;
        s.buf = null;
      } else {
        this.pinAll(s, 1);
        summary.held = true;
      }
    }
    this.trim();
    return summary;
  }

  /** Where `s`'s bytes lie: the chunk of a located frame, else its bytes (copied when they
   *  share a buffer more than twice their size). */
  private hold(s: Stored, data: FrameBytes | InFrame): void {
    if (s.summary.bytes === 0) s.cut = NO_BYTES;
    else if (data instanceof InFrame && data.cut === null) {
      s.buf = data.buf;
      s.at = data.at;
    } else {
      const cut = data instanceof InFrame ? (data.cut as FrameBytes) : data;
      // Bytes handed over in a buffer more than twice their size (Node's pool: an outgoing
      // message) are copied, so the buffer they shared is not kept for them. (A chunked frame
      // lies in transferred chunks, the inner ones its own, the first and last shared with its
      // neighbours: held as it is, each chunk counted once.)
      s.cut =
        !(cut instanceof ChunkedBytes) && cut.byteLength * 2 < cut.buffer.byteLength
          ? ownCopy(cut)
          : cut;
    }
  }

  /** Whether holding `s` would add more than the whole budget: its buffers not held already. */
  private tooLargeToHold(s: Stored): boolean {
    // Nearly every frame: located in a chunk far smaller than the budget (no lookup at all).
    if (s.buf !== null) return s.buf.byteLength > this.maxBytes && !this.pins.has(s.buf);
    // Each buffer once: a frame read in many small pieces into one slab has a chunk per piece,
    // all of the same slab (counted once per chunk, an 8 MiB frame in small reads was "over
    // the budget" and never held).
    const counted = new Set<ArrayBufferLike>();
    let n = 0;
    this.eachBuffer(s, (ab) => {
      if (this.pins.has(ab) || counted.has(ab)) return;
      counted.add(ab);
      n += ab.byteLength;
    });
    return n > this.maxBytes;
  }

  private eachBuffer(s: Stored, f: (ab: ArrayBufferLike) => void): void {
    if (s.buf !== null) f(s.buf);
    else if (s.cut instanceof ChunkedBytes) for (const c of s.cut.chunks) f(c.buffer);
    else if (s.cut !== null) f(s.cut.buffer);
  }

  /** Counts `s`'s buffers held (`by` 1) or let go (`by` -1). */
  private pinAll(s: Stored, by: 1 | -1): void {
    // The common case without a closure: a frame located in its chunk.
    if (s.buf !== null) this.pin(s.buf, by);
    else this.eachBuffer(s, (ab) => this.pin(ab, by));
  }

  private pin(ab: ArrayBufferLike, by: 1 | -1): void {
    const p = this.pins.get(ab);
    if (p === undefined) {
      if (by === 1) {
        // Its size as counted now, subtracted as counted (whatever became of the buffer).
        this.pins.set(ab, { frames: 1, size: ab.byteLength });
        this.heldBytes += ab.byteLength;
      }
      return;
    }
    p.frames += by;
    if (p.frames > 0) return;
    this.pins.delete(ab);
    this.heldBytes -= p.size;
  }

  /** Lets `s`'s bytes go (its summary stays). */
  private release(s: Stored): void {
    if (!s.summary.held) return;
    this.pinAll(s, -1);
    this.droppedBytes += s.summary.bytes;
    s.cut = null;
    s.buf = null;
    s.summary.held = false;
  }

  private trim(): void {
    while (this.heldBytes > this.maxBytes) {
      this.dataCursor = Math.max(this.dataCursor, this.head);
      while (this.dataCursor < this.items.length && !this.items[this.dataCursor].summary.held) {
        this.dataCursor += 1;
      }
      const victim = this.items[this.dataCursor];
      if (victim === undefined) break;
      this.fillPreview(victim);
      this.release(victim);
    }
    while (this.items.length - this.head > this.maxSummaries) {
      // Release the bytes now: the slot stays in `items` until the next compaction.
      this.release(this.items[this.head]);
      this.head += 1;
      this.evictedSummaries += 1;
    }
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.dataCursor = Math.max(0, this.dataCursor - this.head);
      this.head = 0;
    }
  }

  /**
   * The summary's preview: the first PREVIEW_BYTES of the frame as text, decoded on first ask
   * (then kept in the summary). In a flood nobody reads most of them — a snapshot shows the
   * newest ~hundred — and decoding one string per frame up front was a fifth of main's time
   * and a third of its GC under 200,000 notifications. The bytes are held until then: the
   * preview is decoded before they are dropped for the byte budget, and a frame too large to
   * hold gets it at once. A summary evicted from the store before anyone asked has none ('').
   */
  previewOf(summary: FrameSummary): string {
    const s = this.find(summary.seq);
    if (s !== undefined && s.summary === summary) this.fillPreview(s);
    return summary.preview;
  }

  private fillPreview(s: Stored): void {
    if (s.summary.preview !== '' || s.summary.bytes === 0) return;
    const data = bytesOf(s);
    if (data !== null) s.summary.preview = previewText(data);
  }

  get size(): number {
    return this.items.length - this.head;
  }

  summaries(fromSeq = 0, limit = 500): FrameSummary[] {
    const out: FrameSummary[] = [];
    for (let i = this.head; i < this.items.length && out.length < limit; i++) {
      const s = this.items[i];
      if (s.summary.seq < fromSeq) continue;
      this.fillPreview(s);
      out.push(s.summary);
    }
    return out;
  }

  last(n: number): FrameSummary[] {
    const from = Math.max(this.head, this.items.length - n);
    return this.items.slice(from).map((s) => {
      this.fillPreview(s);
      return s.summary;
    });
  }

  private find(seq: number): Stored | undefined {
    // Sequence numbers are dense and increasing: index directly, then check.
    const firstSeq = this.items[this.head]?.summary.seq ?? 0;
    if (seq < firstSeq) return undefined; // evicted (its slot may linger below `head`)
    const s = this.items[this.head + (seq - firstSeq)];
    return s?.summary.seq === seq ? s : undefined;
  }

  /** The frame's bytes as held (no copy: a chunked frame stays in its chunks), or null. */
  bytes(seq: number): FrameBytes | null {
    const s = this.find(seq);
    return s === undefined ? null : bytesOf(s);
  }

  /**
   * Summaries (and bytes, while held) from `fromSeq` on, oldest first: what a payload search
   * walks. Lazy: a search that stops early (its time is up) costs nothing for the rest. Use it
   * within one turn of the event loop (new frames may compact the list in between); a frame
   * whose bytes were dropped has its preview already.
   */
  *walk(fromSeq: number): Generator<{ summary: FrameSummary; data: FrameBytes | null }> {
    const firstSeq = this.items[this.head]?.summary.seq ?? 0;
    for (let i = this.head + Math.max(0, fromSeq - firstSeq); i < this.items.length; i++) {
      const s = this.items[i];
      if (s.summary.seq < fromSeq) continue;
      yield { summary: s.summary, data: bytesOf(s) };
    }
  }

  /** The seq of the oldest summary still listed and of the newest (0 and 0 when empty). */
  seqRange(): { first: number; last: number } {
    return {
      first: this.items[this.head]?.summary.seq ?? 0,
      last: this.items.at(-1)?.summary.seq ?? 0,
    };
  }

  page(seq: number, offset: number, length: number): RawFramePage | null {
    const s = this.find(seq);
    const data = s === undefined ? null : bytesOf(s);
    if (data === null) return null;
    const start = Math.max(0, Math.min(offset, data.length));
    const end = Math.min(data.length, start + Math.max(0, length));
    return {
      seq,
      offset: start,
      length: end - start,
      totalBytes: data.length,
      data: data.subarray(start, end),
    };
  }

  sha256(seq: number): string | null {
    const s = this.find(seq);
    const data = s === undefined ? null : bytesOf(s);
    return data === null ? null : updateHash(createHash('sha256'), data).digest('hex');
  }

  clear(): void {
    this.items.length = 0;
    this.head = 0;
    this.dataCursor = 0;
    this.heldBytes = 0;
    this.pins.clear();
  }
}
