/**
 * Metadata columns being written, frame by frame, on the worker thread (the outbox writes each
 * frame as it is classified: no per-frame object for the common case), then cut to size with
 * `take` for the hand-off. The layout is electron/wire/columns.ts; main reads it with
 * decodeFrames (engine/transport/in-frame.ts).
 */
import {
  type ChunkOrigin,
  COLS,
  type EncodedMetas,
  type Extra,
  type Extras,
  type FrameMeta,
  KINDS,
  type LineRows,
  type MetaBuffers,
  PROGRESS_METHOD,
  type ProgressColumns,
} from '../wire/columns.js';

const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));
const RESPONSE = KINDS.indexOf('response');
const NOTIFICATION = KINDS.indexOf('notification');

export class MetaColumns {
  n = 0;
  num: Float64Array;
  kinds: Uint8Array;
  extras: Extras = { rows: [], values: [] };
  /** The extra of a frame that carries a method and nothing else, one object per method: a
   *  notification flood then posts each method once (structured clone keeps shared references)
   *  instead of an object per frame. Cleared with the columns (`reset`). */
  private readonly methodOnly = new Map<string, Extra>();
  /** The same for frames that carry a problem and nothing else (a flood of stdout pollution). */
  private readonly problemOnly = new Map<string, Extra>();

  constructor(capacity = 64) {
    this.num = new Float64Array(capacity * COLS);
    this.kinds = new Uint8Array(capacity);
  }

  /** Empty again, for the next batch (the buffers are kept). */
  reset(): void {
    this.n = 0;
    this.extras = { rows: [], values: [] };
    this.methodOnly.clear();
    this.problemOnly.clear();
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
    const noMore =
      c.error === undefined &&
      c.progressToken === undefined &&
      c.progress === undefined &&
      c.total === undefined;
    // Nothing beyond the columns but, at most, a method.
    const methodAtMost = (numericId || c.id === undefined) && noMore && c.problem === undefined;
    if (methodAtMost && c.method === undefined) return; // the bulk of a flood: a response
    if (methodAtMost && c.method !== undefined) {
      this.pushShared(i, this.methodOnly, 'method', c.method);
      return;
    }
    if (noMore && c.problem !== undefined && c.method === undefined && c.id === undefined) {
      // A line that is not JSON (or not JSON-RPC): its problem alone, one object per wording.
      this.pushShared(i, this.problemOnly, 'problem', c.problem);
      return;
    }
    if (
      c.method === PROGRESS_METHOD &&
      c.id === undefined &&
      c.error === undefined &&
      c.problem === undefined &&
      this.kinds[i] === NOTIFICATION
    ) {
      this.extras.progress ??= { rows: [], tokens: [], progress: [], total: [] };
      const p = this.extras.progress;
      p.rows.push(i);
      p.tokens.push(c.progressToken ?? null);
      p.progress.push(c.progress ?? Number.NaN);
      p.total.push(c.total ?? Number.NaN);
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

  /** Row i carries `{ [field]: value }` and nothing else: one object per value and batch. */
  private pushShared(
    i: number,
    shared: Map<string, Extra>,
    field: 'method' | 'problem',
    value: string,
  ): void {
    let extra = shared.get(value);
    if (extra === undefined) {
      extra = { [field]: value };
      shared.set(value, extra);
    }
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
    const { rows, values, progress } = this.extras;
    const out: Extras = { rows: [], values: [] };
    if (from === 0 && to >= this.n) {
      out.rows = rows.slice();
      out.values = values.slice();
    } else {
      for (let k = 0; k < rows.length; k++) {
        if (rows[k] < from || rows[k] >= to) continue;
        out.rows.push(rows[k] - from);
        out.values.push(values[k]);
      }
    }
    if (progress === undefined) return out;
    const p: ProgressColumns = { rows: [], tokens: [], progress: [], total: [] };
    for (let k = 0; k < progress.rows.length; k++) {
      if (progress.rows[k] < from || progress.rows[k] >= to) continue;
      p.rows.push(progress.rows[k] - from);
      p.tokens.push(progress.tokens[k]);
      p.progress.push(progress.progress[k]);
      p.total.push(progress.total[k]);
    }
    if (p.rows.length > 0) out.progress = p;
    return out;
  }

  /** Frames [from, to) as exact-size, transferable columns (indices rebased to 0), written into
   *  `reuse` when its buffers are large enough (columns main has read and handed back: fresh
   *  memory costs a page fault per 4 KiB, megabytes of them in a flood). */
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
