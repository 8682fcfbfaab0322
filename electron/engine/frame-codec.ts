/**
 * Columnar encoding of frame metadata for the worker → main hand-off.
 *
 * Structured clone of one object per frame costs about as much as classifying it; numbers go
 * in one transferred Float64Array and kinds in a Uint8Array instead, and only frames that carry
 * more (a string id, a method, an error, progress, a problem) get a small object in `extras`.
 * A plain response with a numeric id — the bulk of any flood — costs no object at all.
 */
import { FRAME_KIND_LIST } from '../../shared/frames.js';
import { ChunkReader } from './frame-bytes.js';
import { InFrame } from './in-frame.js';
import type { FrameKind, FrameMeta } from './worker-protocol.js';

/** A frame's kind travels as its index here. */
const KINDS: readonly FrameKind[] = FRAME_KIND_LIST;
const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));
const RESPONSE = KINDS.indexOf('response');
const COLS = 5; // offset, bytes, start, t, numeric id (NaN: none / see extras)

type Extra = Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't' | 'kind'>;

/**
 * The frames that carry more, as two parallel arrays: their row numbers and what each carries.
 * Not [row, extra] pairs: structured clone wrote a small array per pair, ~0.7 µs each — most of
 * a batch's post in a notification flood, where every frame carries its method.
 */
export interface Extras {
  rows: number[];
  values: Extra[];
}

/** The buffers behind an EncodedMetas, handed back by main for the next batches. */
export interface MetaBuffers {
  num: ArrayBuffer;
  kinds: ArrayBuffer;
}

export interface EncodedMetas {
  n: number;
  num: Float64Array;
  kinds: Uint8Array;
  /** The frames that need more than the columns, and what. */
  extras: Extras;
}

/** Lines found in a chunk, by row: where each starts and ends in the chunk and, for a plain
 *  response, its numeric id (the worker's scanner rows, electron/engine/line-batch.ts, which
 *  answers the run-at-a-time questions inside the WebAssembly module). */
export interface LineRows {
  startAt(r: number): number;
  endAt(r: number): number;
  idAt(r: number): number;
  /** The lengths of rows [r0, r1) summed; `runLargest()` then gives the longest. */
  runBytes(r0: number, r1: number): number;
  runLargest(): number;
  /** Writes rows [r0, r1) as plain responses into `dst` from index `at`, COLS values per row
   *  (o.offsetDelta + start, length, o.base + start, o.t, id): MetaColumns' layout. */
  copyRun(r0: number, r1: number, o: ChunkOrigin, dst: Float64Array, at: number): void;
}

/** Where a chunk's position 0 lies: in the stream (`offsetDelta`) and in its batch's bytes
 *  (`base`), and when it arrived (`t`): a line at chunk position p has stream offset
 *  offsetDelta + p and batch position base + p. */
export interface ChunkOrigin {
  offsetDelta: number;
  base: number;
  t: number;
}

/** LineRows over plain arrays, row by row in JavaScript: the reference the scanner's rows are
 *  tested against, and what tests build runs with. */
export class ArrayRows implements LineRows {
  private largest = 0;

  constructor(
    private readonly starts: readonly number[],
    private readonly ends: readonly number[],
    private readonly ids: readonly number[],
  ) {}

  startAt(r: number): number {
    return this.starts[r];
  }

  endAt(r: number): number {
    return this.ends[r];
  }

  idAt(r: number): number {
    return this.ids[r];
  }

  runBytes(r0: number, r1: number): number {
    let sum = 0;
    this.largest = 0;
    for (let r = r0; r < r1; r++) {
      const n = this.ends[r] - this.starts[r];
      sum += n;
      if (n > this.largest) this.largest = n;
    }
    return sum;
  }

  runLargest(): number {
    return this.largest;
  }

  copyRun(r0: number, r1: number, origin: ChunkOrigin, dst: Float64Array, at: number): void {
    for (let r = r0, o = at; r < r1; r++, o += COLS) {
      const start = this.starts[r];
      dst[o] = origin.offsetDelta + start;
      dst[o + 1] = this.ends[r] - start;
      dst[o + 2] = origin.base + start;
      dst[o + 3] = origin.t;
      dst[o + 4] = this.ids[r];
    }
  }
}

/**
 * Metadata columns being filled frame by frame (the worker's outbox writes each frame as it is
 * classified: no per-frame object for the common case), then cut to size with `take`.
 */
export class MetaColumns {
  n = 0;
  num: Float64Array;
  kinds: Uint8Array;
  extras: Extras = { rows: [], values: [] };
  /** The extra of a frame that carries a method and nothing else, one object per method: a
   *  notification flood then posts each method once (structured clone keeps shared references)
   *  instead of an object per frame. Cleared with the columns (`reset`). */
  private readonly methodOnly = new Map<string, Extra>();

  constructor(capacity = 64) {
    this.num = new Float64Array(capacity * COLS);
    this.kinds = new Uint8Array(capacity);
  }

  /** Empty again, for the next batch (the buffers are kept). */
  reset(): void {
    this.n = 0;
    this.extras = { rows: [], values: [] };
    this.methodOnly.clear();
  }

  /** Columns holding exactly the frames of `e` (copied). */
  static from(e: EncodedMetas): MetaColumns {
    const c = new MetaColumns(Math.max(1, e.n));
    c.num.set(e.num);
    c.kinds.set(e.kinds);
    c.extras = e.extras;
    c.n = e.n;
    return c;
  }

  /** Appends one frame; `c` is its classification (kind and what else it carries). */
  push(
    c: Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't'>,
    offset: number,
    bytes: number,
    start: number,
    t: number,
  ): void {
    const numericId = typeof c.id === 'number';
    const i = this.row(
      KIND_CODE.get(c.kind) ?? 4,
      numericId ? (c.id as number) : Number.NaN,
      offset,
      bytes,
      start,
      t,
    );
    // Nothing beyond the columns but, at most, a method.
    const methodAtMost =
      (numericId || c.id === undefined) &&
      c.error === undefined &&
      c.progressToken === undefined &&
      c.progress === undefined &&
      c.total === undefined &&
      c.problem === undefined;
    if (methodAtMost && c.method === undefined) return; // the bulk of a flood: a response
    if (methodAtMost && c.method !== undefined) {
      let shared = this.methodOnly.get(c.method);
      if (shared === undefined) {
        shared = { method: c.method };
        this.methodOnly.set(c.method, shared);
      }
      this.extras.rows.push(i);
      this.extras.values.push(shared);
      return;
    }
    const extra: Extra = {};
    // Numeric ids travel in `num`; string and null ids (rare) as extras.
    if (!numericId && c.id !== undefined) extra.id = c.id;
    if (c.method !== undefined) extra.method = c.method;
    if (c.error !== undefined) extra.error = c.error;
    if (c.progressToken !== undefined) extra.progressToken = c.progressToken;
    if (c.progress !== undefined) extra.progress = c.progress;
    if (c.total !== undefined) extra.total = c.total;
    if (c.problem !== undefined) extra.problem = c.problem;
    this.extras.rows.push(i);
    this.extras.values.push(extra);
  }

  /** Appends a plain response with a numeric id (the bulk of a flood: no object at all). */
  pushResponse(id: number, offset: number, bytes: number, start: number, t: number): void {
    this.row(RESPONSE, id, offset, bytes, start, t);
  }

  /** Appends rows [r0, r1) of `rows`, all plain responses lying in the chunk at `origin`. */
  pushResponses(rows: LineRows, r0: number, r1: number, origin: ChunkOrigin): void {
    const n0 = this.n;
    const n1 = n0 + (r1 - r0);
    while (this.kinds.length < n1) this.grow();
    this.kinds.fill(RESPONSE, n0, n1);
    rows.copyRun(r0, r1, origin, this.num, n0 * COLS);
    this.n = n1;
  }

  private row(
    kind: number,
    id: number,
    offset: number,
    bytes: number,
    start: number,
    t: number,
  ): number {
    const i = this.n++;
    if (i === this.kinds.length) this.grow();
    const o = i * COLS;
    const num = this.num;
    num[o] = offset;
    num[o + 1] = bytes;
    num[o + 2] = start;
    num[o + 3] = t;
    num[o + 4] = id;
    this.kinds[i] = kind;
    return i;
  }

  /** Frames the columns hold without growing. */
  get capacity(): number {
    return this.kinds.length;
  }

  /** Where frame i's bytes are (the outbox rebases them when it splits a batch). */
  start(i: number): number {
    return this.num[i * COLS + 2];
  }

  setStart(i: number, start: number): void {
    this.num[i * COLS + 2] = start;
  }

  bytes(i: number): number {
    return this.num[i * COLS + 1];
  }

  private grow(): void {
    const capacity = Math.max(1, this.kinds.length * 2);
    const num = new Float64Array(capacity * COLS);
    num.set(this.num);
    this.num = num;
    const kinds = new Uint8Array(capacity);
    kinds.set(this.kinds);
    this.kinds = kinds;
  }

  /** Frames [from, to) as columns of their own, exact size (one copy): a batch cut in two, or a
   *  small batch that waits. */
  slice(from = 0, to = this.n): MetaColumns {
    const c = new MetaColumns(Math.max(1, to - from));
    c.num.set(this.num.subarray(from * COLS, to * COLS));
    c.kinds.set(this.kinds.subarray(from, to));
    c.extras = this.extrasIn(from, to);
    c.n = to - from;
    return c;
  }

  private extrasIn(from: number, to: number): Extras {
    const { rows, values } = this.extras;
    if (from === 0 && to >= this.n) return { rows: rows.slice(), values: values.slice() };
    const out: Extras = { rows: [], values: [] };
    for (let k = 0; k < rows.length; k++) {
      if (rows[k] < from || rows[k] >= to) continue;
      out.rows.push(rows[k] - from);
      out.values.push(values[k]);
    }
    return out;
  }

  /** Frames [from, to) as exact-size, transferable columns (indices rebased to 0), written into
   *  `reuse` when its buffers are large enough (columns main has read and handed back: fresh
   *  memory costs a page fault per 4 KiB, ~8 MB of them for 200,000 frames). */
  take(from = 0, to = this.n, reuse?: MetaBuffers): EncodedMetas {
    const n = to - from;
    const fits =
      reuse !== undefined && reuse.num.byteLength >= n * COLS * 8 && reuse.kinds.byteLength >= n;
    const num = fits ? new Float64Array(reuse.num, 0, n * COLS) : new Float64Array(n * COLS);
    const kinds = fits ? new Uint8Array(reuse.kinds, 0, n) : new Uint8Array(n);
    num.set(this.num.subarray(from * COLS, to * COLS));
    kinds.set(this.kinds.subarray(from, to));
    return {
      n,
      num,
      kinds,
      extras: this.extrasIn(from, to),
    };
  }
}

export function encodeMetas(metas: readonly FrameMeta[]): EncodedMetas {
  const cols = new MetaColumns(Math.max(1, metas.length));
  for (const m of metas) cols.push(m, m.offset, m.bytes, m.start, m.t);
  return cols.take();
}

/**
 * The frames of a batch, in one pass and one object shape (main's side of the hand-off: it
 * makes ~200,000 of these a second in a flood). `reader` locates each frame's bytes in the
 * batch's buffers, in order; they are cut out only when asked (InFrame).
 */
export function decodeFrames(e: EncodedMetas, reader: ChunkReader): InFrame[] {
  const out: InFrame[] = new Array(e.n);
  const num = e.num;
  for (let i = 0; i < e.n; i++) {
    const o = i * COLS;
    const id = num[o + 4];
    const start = num[o + 2];
    const bytes = num[o + 1];
    const cut = reader.locate(start, bytes);
    out[i] = new InFrame(
      num[o],
      bytes,
      start,
      num[o + 3],
      KINDS[e.kinds[i]],
      Number.isNaN(id) ? undefined : id,
      reader.buf,
      reader.at,
      cut,
    );
  }
  addExtras(out, e.extras);
  return out;
}

/** The fields of the frames that carry more, onto them. Apart from decodeFrames' loop, and
 *  without for-of destructuring: inlined there, the iteration protocol made TurboFan's jobs for
 *  main's hottest function ~70 % longer (~29 against ~17 ms of compile jobs in a 200,000-frame
 *  run, medians of 4; CPU taken on the two cores the worker needs). */
function addExtras(frames: object[], extras: Extras): void {
  const { rows, values } = extras;
  for (let k = 0; k < rows.length; k++) Object.assign(frames[rows[k]], values[k]);
}

/** Frame metadata alone (no bytes): an absent id stays absent. */
export function decodeMetas(e: EncodedMetas): FrameMeta[] {
  return decodeFrames(e, new ChunkReader([])).map(
    ({ buf: _buf, at: _at, cut: _cut, id, ...meta }) => (id === undefined ? meta : { ...meta, id }),
  );
}
