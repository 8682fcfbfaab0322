/**
 * A frame's metadata and its columnar encoding for the worker → main hand-off: the shapes both
 * threads agree on. The worker writes them (worker/meta-columns.ts), main reads them
 * (engine/transport/in-frame.ts); nothing here holds state.
 *
 * Structured clone of one object per frame costs about as much as classifying it; numbers go
 * in one transferred Float64Array and kinds in a Uint8Array instead, and only frames that carry
 * more (a string id, a method, an error, a problem) get a small object in `extras` — one per
 * method for frames with a method alone, columns for progress notifications. A plain response
 * with a numeric id — the bulk of any flood — costs no object at all. Main turns the columns
 * into frames with decodeFrames.
 */

import type { FrameKind } from '../../shared/frames.js';
import { FRAME_KIND_LIST } from '../../shared/frames.js';

export type { FrameKind };

/** What the worker learns about a line while classifying it (the bytes travel separately). */
export interface FrameMeta {
  /** Stream offset of the first byte of the line. */
  offset: number;
  /** Length of the frame bytes (no \r\n). */
  bytes: number;
  /** Position of this frame's bytes in its batch's buffers (taken as one run of bytes). */
  start: number;
  kind: FrameKind;
  /** ms since session start when the newline arrived. */
  t: number;
  id?: string | number | null;
  method?: string;
  /** For responses: whether it carried `error`, and the error's code and message. */
  error?: { code: number; message: string };
  /** Progress notification fields. */
  progressToken?: string | number;
  progress?: number;
  total?: number;
  /** JSON.parse message for parse errors, or why the JSON is not JSON-RPC. */
  problem?: string;
}

/** A frame's kind travels as its index here. */
export const KINDS: readonly FrameKind[] = FRAME_KIND_LIST;
/** offset, bytes, start, t, numeric id (NaN: none / see extras) */
export const COLS = 5;
export const PROGRESS_METHOD = 'notifications/progress';

/** What a frame carries beyond the columns. */
export type Extra = Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't' | 'kind'>;

/**
 * The frames that carry more, as two parallel arrays: their row numbers and what each carries.
 * Not [row, extra] pairs: structured clone writes a small array per pair, which was most of a
 * batch's post in a notification flood, where every frame carries its method.
 */
export interface Extras {
  rows: number[];
  values: Extra[];
  /** Progress notifications that carry nothing else, as columns (absent when a batch has none). */
  progress?: ProgressColumns;
}

/**
 * The fields of `notifications/progress` frames, a column each, by row: an object per frame
 * made the structured clone of a batch of progress frames several times costlier. `null` or
 * NaN: the field is absent (JSON has no NaN: a parsed progress is never one).
 */
export interface ProgressColumns {
  rows: number[];
  tokens: (string | number | null)[];
  progress: number[];
  total: number[];
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
 *  response, its numeric id (the worker's scanner rows, electron/worker/read/line-batch.ts, which
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
