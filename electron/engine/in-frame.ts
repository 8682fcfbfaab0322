/**
 * A frame as main receives it from the worker: its metadata, and where its bytes lie.
 *
 * The bytes are not cut out of the batch up front. A view per frame (a typed array: costly to
 * make and to collect) was much of what main spent on a small frame; without it, and without
 * the frame store's copy of each, main's time in a 200,000-notification flood went from ~410 to
 * ~340 ms. A frame inside one transferred chunk keeps that chunk and its position; `data` makes
 * the view when someone asks, and the frame store keeps the position.
 */
import { bufferView, type FrameBytes } from './frame-bytes.js';
import type { FrameKind, FrameMeta } from './worker-protocol.js';

export class InFrame implements FrameMeta {
  // Declared, then assigned in the constructor: as class fields (or parameter properties) they
  // would be defined by an initializer call per frame first, ~200,000 a second in a flood.
  declare offset: number;
  declare bytes: number;
  declare start: number;
  declare t: number;
  declare kind: FrameKind;
  declare id: string | number | null | undefined;
  /** The chunk holding the bytes, from `at` (unused when `cut` holds them). */
  declare buf: ArrayBuffer;
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
    buf: ArrayBuffer,
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
      EMPTY,
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

const EMPTY = new ArrayBuffer(0);
