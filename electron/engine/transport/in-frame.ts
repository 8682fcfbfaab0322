/**
 * A frame as main receives it from the worker: its metadata, and where its bytes lie.
 *
 * The bytes are not cut out of the batch up front. A view per frame (a typed array: costly to
 * make and to collect) was much of what main spent on a small frame, as was the frame store's
 * copy of each. A frame inside one transferred chunk keeps that chunk and its position; `data` makes
 * the view when someone asks, and the frame store keeps the position.
 */

import {
  COLS,
  type EncodedMetas,
  type Extras,
  type FrameKind,
  type FrameMeta,
  KINDS,
  PROGRESS_METHOD,
  type ProgressColumns,
} from '../../wire/columns.js';
import { bufferView, ChunkReader, type FrameBytes } from './frame-bytes.js';

export class InFrame implements FrameMeta {
  // Declared, then assigned in the constructor: as class fields (or parameter properties) they
  // would be defined by an initializer call per frame first, ~200,000 a second in a flood.
  declare offset: number;
  declare bytes: number;
  declare start: number;
  declare t: number;
  declare kind: FrameKind;
  declare id: string | number | null | undefined;
  /** The chunk holding the bytes, from `at` (an empty buffer when `cut` holds them). */
  declare buf: ArrayBufferLike;
  declare at: number;
  /** The bytes already cut: a frame that crossed chunks, or one made with `of`. */
  declare cut: FrameBytes | null;
  // Set, when a frame carries them, by the codec's extras (absent otherwise: no field).
  declare method?: string;
  declare error?: { code: number; message: string };
  declare progressToken?: string | number;
  declare progress?: number;
  declare total?: number;
  declare problem?: string;

  constructor(
    offset: number,
    bytes: number,
    start: number,
    t: number,
    kind: FrameKind,
    id: string | number | null | undefined,
    buf: ArrayBufferLike,
    at: number,
    cut: FrameBytes | null,
  ) {
    this.offset = offset;
    this.bytes = bytes;
    this.start = start;
    this.t = t;
    this.kind = kind;
    this.id = id;
    this.buf = buf;
    this.at = at;
    this.cut = cut;
  }

  /** A frame holding `data` itself (tests, and frames that never crossed the hand-off). */
  static of(meta: Omit<FrameMeta, 'bytes' | 'start'> & { start?: number }, data: FrameBytes) {
    const f = new InFrame(
      meta.offset,
      data.length,
      meta.start ?? 0,
      meta.t,
      meta.kind,
      meta.id,
      NO_CHUNK,
      0,
      data,
    );
    const { offset: _o, start: _s, t: _t, kind: _k, id: _i, ...extras } = meta;
    return Object.assign(f, extras);
  }

  /** The frame's bytes: a view into its chunk, made on each call (or the bytes already cut). */
  get data(): FrameBytes {
    return this.cut ?? bufferView(this.buf, this.at, this.bytes);
  }
}

const NO_CHUNK = new ArrayBuffer(0);

/**
 * The frames of a batch, in one pass and one object shape (main's side of the hand-off: it
 * makes ~200,000 of these a second in a flood). `reader` locates each frame's bytes in the
 * batch's buffers, in order; they are cut out only when asked (InFrame). The few frames that
 * cross chunks are cut after the loop (cutAcross), which keeps the loop small to compile.
 */
export function decodeFrames(e: EncodedMetas, reader: ChunkReader): InFrame[] {
  const out: InFrame[] = new Array(e.n);
  const across: number[] = [];
  for (let i = 0; i < e.n; i += DECODE_RUN) {
    decodeRun(e, reader, out, i, Math.min(e.n, i + DECODE_RUN), across);
  }
  if (across.length > 0) cutAcross(out, across, reader.again());
  addExtras(out, e.extras);
  return out;
}

/** Frames a decodeRun call takes: short enough that V8 optimizes the loop once, from its calls,
 *  not a second time on the stack (on-stack replacement) during a batch of thousands. */
const DECODE_RUN = 256;

function decodeRun(
  e: EncodedMetas,
  reader: ChunkReader,
  out: InFrame[],
  from: number,
  to: number,
  across: number[],
): void {
  const num = e.num;
  const kinds = e.kinds;
  for (let i = from; i < to; i++) {
    const o = i * COLS;
    const id = num[o + 4];
    const start = num[o + 2];
    const bytes = num[o + 1];
    const within = reader.within(start, bytes);
    out[i] = new InFrame(
      num[o],
      bytes,
      start,
      num[o + 3],
      KINDS[kinds[i]],
      Number.isNaN(id) ? undefined : id,
      within ? reader.buf : NO_CHUNK, // (a cut frame keeps no chunk of its own)
      within ? reader.at : 0,
      null,
    );
    if (!within) across.push(i);
  }
}

/** The frames at `rows` (in stream order) that cross chunks, cut out of them. */
function cutAcross(frames: InFrame[], rows: number[], reader: ChunkReader): void {
  for (let k = 0; k < rows.length; k++) {
    const f = frames[rows[k]];
    f.cut = reader.read(f.start, f.bytes);
  }
}

/** The fields of the frames that carry more, onto them. Apart from decodeFrames' loop, and
 *  without for-of destructuring: inlined there, the iteration protocol made TurboFan's jobs for
 *  main's hottest function much longer (CPU taken from the cores the worker needs). */
function addExtras(frames: InFrame[], extras: Extras): void {
  const { rows, values, progress } = extras;
  for (let k = 0; k < rows.length; k++) Object.assign(frames[rows[k]], values[k]);
  if (progress !== undefined) addProgress(frames, progress);
}

function addProgress(frames: InFrame[], p: ProgressColumns): void {
  for (let k = 0; k < p.rows.length; k++) {
    const f = frames[p.rows[k]];
    f.method = PROGRESS_METHOD;
    const token = p.tokens[k];
    if (token !== null) f.progressToken = token;
    const progress = p.progress[k];
    if (!Number.isNaN(progress)) f.progress = progress;
    const total = p.total[k];
    if (!Number.isNaN(total)) f.total = total;
  }
}

/** Frame metadata alone (no bytes): an absent id stays absent. */
export function decodeMetas(e: EncodedMetas): FrameMeta[] {
  return decodeFrames(e, new ChunkReader([])).map(
    ({ buf: _buf, at: _at, cut: _cut, id, ...meta }) => (id === undefined ? meta : { ...meta, id }),
  );
}
