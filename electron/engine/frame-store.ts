/**
 * Frame store: what the session saw on the wire, bounded.
 *
 * Owns: a summary for each recent frame (both directions) and the full bytes of the most
 * recent ones, within a byte budget. Fed by: the Session's dispatcher (incoming) and its
 * writer (outgoing). Listens: hosts that page through a frame (a 64 MiB frame is never handed
 * out whole) and the trace recorder.
 *
 * Bounded twice: at most `maxSummaries` summaries (oldest evicted, counted) and at most
 * `maxBytes` of frame bytes (oldest bytes dropped first, summary kept and marked).
 */
import { createHash } from 'node:crypto';
import type { FrameSummary } from '../../shared/frames.js';
import { ChunkedBytes, type FrameBytes, updateHash } from './frame-bytes.js';

export type { FrameDirection, FrameSummary } from '../../shared/frames.js';

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

interface Stored {
  summary: FrameSummary;
  data: FrameBytes | null;
}

export class FrameStore {
  private readonly items: Stored[] = [];
  private head = 0;
  /** Index of the oldest item that may still hold bytes (bytes are dropped oldest first). */
  private dataCursor = 0;
  private nextSeq = 1;
  heldBytes = 0;
  evictedSummaries = 0;
  droppedBytes = 0;

  constructor(
    private readonly maxBytes = 256 * 1024 * 1024,
    private readonly maxSummaries = 50_000,
  ) {}

  add(
    info: Omit<FrameSummary, 'seq' | 'preview' | 'held' | 'bytes'>,
    data: FrameBytes,
  ): FrameSummary {
    // Explicit fields, not `...info`: one stable object shape; the spread made each summary a
    // slow object and made add() ~5× slower (200k adds: ~1.2 s → ~0.2 s).
    const summary: FrameSummary = {
      dir: info.dir,
      t: info.t,
      offset: info.offset,
      kind: info.kind,
      id: info.id,
      method: info.method,
      problem: info.problem,
      seq: this.nextSeq++,
      bytes: data.length,
      preview: '', // decoded when asked for (previewOf) or before the bytes go
      held: false,
    };
    let held: FrameBytes | null = null;
    if (data.length > this.maxBytes) summary.preview = previewText(data);
    else {
      // Small frames arrive as views into a shared batch buffer: copy them so the store holds
      // exactly what it accounts for. Large frames own their buffer already.
      // (A chunked frame is made of whole transferred chunks: held as it is.)
      held =
        !(data instanceof ChunkedBytes) && data.byteLength * 2 < data.buffer.byteLength
          ? Buffer.from(data)
          : data;
      summary.held = true;
      this.heldBytes += data.length;
    }
    this.items.push({ summary, data: held });
    this.trim();
    return summary;
  }

  private trim(): void {
    while (this.heldBytes > this.maxBytes) {
      this.dataCursor = Math.max(this.dataCursor, this.head);
      while (this.dataCursor < this.items.length && this.items[this.dataCursor].data === null) {
        this.dataCursor += 1;
      }
      const victim = this.items[this.dataCursor];
      if (!victim?.data) break;
      this.fillPreview(victim);
      this.heldBytes -= victim.data.length;
      this.droppedBytes += victim.data.length;
      victim.data = null;
      victim.summary.held = false;
    }
    while (this.items.length - this.head > this.maxSummaries) {
      const gone = this.items[this.head];
      if (gone.data) this.heldBytes -= gone.data.length;
      // Release the bytes now: the slot stays in `items` until the next compaction.
      gone.data = null;
      gone.summary.held = false;
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
    if (s.summary.preview === '' && s.data !== null && s.data.length > 0) {
      s.summary.preview = previewText(s.data);
    }
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

  page(seq: number, offset: number, length: number): RawFramePage | null {
    const s = this.find(seq);
    if (!s?.data) return null;
    const start = Math.max(0, Math.min(offset, s.data.length));
    const end = Math.min(s.data.length, start + Math.max(0, length));
    return {
      seq,
      offset: start,
      length: end - start,
      totalBytes: s.data.length,
      data: s.data.subarray(start, end),
    };
  }

  sha256(seq: number): string | null {
    const s = this.find(seq);
    return s?.data ? updateHash(createHash('sha256'), s.data).digest('hex') : null;
  }

  clear(): void {
    this.items.length = 0;
    this.head = 0;
    this.dataCursor = 0;
    this.heldBytes = 0;
  }
}
