/**
 * Line batch: many whole lines of one chunk split and scanned in a single call into the JSON
 * scanner's module (json-scan.ts loads it and pools its instances).
 */
import type { ChunkOrigin } from '../../wire/columns.js';
import {
  acquire,
  errorText,
  type Instance,
  release,
  type Scanned,
  type Span,
  TOPS,
  type TopKind,
} from './json-scan.js';

/** i32 slots per result row (see splitScan in the module). */
const ROW = 24;
/** f64 values per row written by the module's runColumns (MetaColumns' layout). */
const RUN_COLS = 5;

/**
 * Many whole lines of one chunk split and scanned in a single call into the module: the
 * transport worker's small frames (a pipe chunk holds ~300 responses of 200 bytes; a call each
 * would cost more in crossings than the scanning). After `split`, `row(k)` selects line k's
 * results (valid until the next `split` or `release`). Borrows an instance of its own from the
 * pool, apart from any line in pieces.
 */
export class LineBatch implements Scanned {
  /** The largest chunk `split` takes. */
  readonly maxBytes: number;
  /** The instance holding the last scan's rows (borrowed from the pool until `release`). */
  private inst: Instance | null = null;
  /** The memory as i32 slots, f64 slots and bytes, taken after each scan (the module may grow
   *  it). */
  s: Int32Array = new Int32Array(0);
  private f64: Float64Array = new Float64Array(0);
  u8: Uint8Array = new Uint8Array(0);
  /** Slot index of the selected row. */
  base = 0;
  private out = 0;
  /** The chunk whose bytes are in the borrowed instance's input now. */
  private loaded: Uint8Array | null = null;

  constructor() {
    const probe = acquire();
    this.maxBytes = probe.inputMax;
    release(probe);
  }

  /**
   * Splits chunk[from, to) — whole lines, each ending in \n — into lines and scans them, in one
   * call (chunk.length <= maxBytes). Returns the rows written (line k of the run is row k; at
   * most 32,768) and where it stopped, `to` once all is done. A line longer than `maxLen`
   * (one \r left out) is not scanned: `oversize()` is true for its row.
   */
  split(
    chunk: Uint8Array,
    from: number,
    to: number,
    maxLen: number,
  ): { rows: number; stop: number } {
    this.inst ??= acquire();
    const inst = this.inst;
    if (this.loaded !== chunk) {
      inst.bytes().set(chunk, inst.input);
      this.loaded = chunk;
    }
    const rows = inst.ex.splitScan(from, to, Math.min(maxLen, 0x7fffffff));
    this.views(inst);
    return { rows, stop: inst.ex.splitStop() };
  }

  private views(inst: Instance): void {
    this.s = inst.slots();
    this.u8 = inst.bytes();
    if (this.f64.buffer !== this.s.buffer) this.f64 = new Float64Array(this.s.buffer);
    this.out = inst.ex.outAt() >> 2;
  }

  /** Gives the instance back to the pool (the rows are no longer read). */
  release(): void {
    if (this.inst !== null) release(this.inst);
    this.inst = null;
    this.loaded = null;
  }

  /** Where the selected row's line starts and ends in its chunk (one \r left out). */
  lineStart(): number {
    return this.s[this.base + 20];
  }

  lineEnd(): number {
    return this.s[this.base + 21];
  }

  /** The selected line was over the length limit (not scanned); `rawLength()` is its length
   *  without the \n (a \r included). */
  oversize(): boolean {
    return this.s[this.base] === 2;
  }

  rawLength(): number {
    return this.s[this.base + 3];
  }

  /** The id of the selected line if it is a plain response (numeric id, plain "2.0", result,
   *  no error), else -1: the bulk of a flood, read without building anything. */
  plainId(): number {
    return this.f64[(this.base + 22) >> 1];
  }

  /** The first row in [r, rows) that is not a plain response (valid JSON, within the limit, a
   *  numeric id; rows when all are): the bulk of a flood, taken a run at a time (runBytes,
   *  copyRun) without selecting rows. */
  plainRunEnd(r: number, rows: number): number {
    return (this.inst as Instance).ex.plainRunEnd(r, rows);
  }

  runBytes(r0: number, r1: number): number {
    return (this.inst as Instance).ex.runBytes(r0, r1);
  }

  runLargest(): number {
    return (this.inst as Instance).ex.runLargest();
  }

  copyRun(r0: number, r1: number, o: ChunkOrigin, dst: Float64Array, at: number): void {
    const inst = this.inst as Instance;
    const src = inst.ex.runColumns(r0, r1, o.offsetDelta, o.base, o.t) >> 3;
    // runColumns never grows the memory: the f64 view taken after the split is current.
    dst.set(this.f64.subarray(src, src + (r1 - r0) * RUN_COLS), at);
  }

  startAt(r: number): number {
    return this.s[this.out + r * ROW + 20];
  }

  endAt(r: number): number {
    return this.s[this.out + r * ROW + 21];
  }

  idAt(r: number): number {
    return this.f64[(this.out + r * ROW + 22) >> 1];
  }

  /** Selects line i's results; returns whether the line was valid JSON. */
  row(i: number): boolean {
    this.base = this.out + i * ROW;
    return this.s[this.base] === 1;
  }

  /** Why the selected line is not JSON. */
  error(): string {
    const s = this.s;
    const b = this.base;
    return errorText(s[b + 3], s[b + 4], s[b + 5], s[b + 6]);
  }

  get top(): TopKind {
    return TOPS[this.s[this.base + 1]] ?? 'none';
  }

  has(field: number): boolean {
    return (this.s[this.base + 2] & (1 << field)) !== 0;
  }

  overCap(field: number): boolean {
    return this.has(field) && this.s[this.base + 7 + 2 * field] === -1;
  }

  value(field: number): Span | null {
    if (!this.has(field)) return null;
    const len = this.s[this.base + 7 + 2 * field];
    if (len <= 0) return null;
    const start = this.s[this.base + 6 + 2 * field];
    return { buf: this.u8, start, end: start + len };
  }
}
