/**
 * Columnar encoding of frame metadata for the worker → main hand-off.
 *
 * Structured clone of one object per frame costs about as much as classifying it; numbers go
 * in one transferred Float64Array and kinds in a Uint8Array instead, and only frames that carry
 * more (a string id, a method, an error, progress, a problem) get a small object in `extras`.
 * A plain response with a numeric id — the bulk of any flood — costs no object at all.
 */
import type { FrameKind, FrameMeta } from './worker-protocol.js';

const KINDS: readonly FrameKind[] = [
  'request',
  'response',
  'notification',
  'batch',
  'invalid',
  'parse-error',
  'empty',
];
const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));
const COLS = 5; // offset, bytes, start, t, numeric id (NaN: none / see extras)

type Extra = Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't' | 'kind'>;

export interface EncodedMetas {
  n: number;
  num: Float64Array;
  kinds: Uint8Array;
  /** [frame index, extra fields] pairs for the frames that need them. */
  extras: [number, Extra][];
}

export function encodeMetas(metas: readonly FrameMeta[]): EncodedMetas {
  const n = metas.length;
  const num = new Float64Array(n * COLS);
  const kinds = new Uint8Array(n);
  const extras: [number, Extra][] = [];
  for (let i = 0; i < n; i++) {
    const m = metas[i];
    const o = i * COLS;
    num[o] = m.offset;
    num[o + 1] = m.bytes;
    num[o + 2] = m.start;
    num[o + 3] = m.t;
    kinds[i] = KIND_CODE.get(m.kind) ?? 4;
    const numericId = typeof m.id === 'number';
    num[o + 4] = numericId ? (m.id as number) : Number.NaN;
    let extra: Extra | null = null;
    const add = (): Extra => {
      extra ??= {};
      return extra;
    };
    // Numeric ids travel in `num`; string and null ids (rare) as extras.
    if (!numericId && m.id !== undefined) add().id = m.id;
    if (m.method !== undefined) add().method = m.method;
    if (m.error !== undefined) add().error = m.error;
    if (m.progressToken !== undefined) add().progressToken = m.progressToken;
    if (m.progress !== undefined) add().progress = m.progress;
    if (m.total !== undefined) add().total = m.total;
    if (m.params !== undefined) add().params = m.params;
    if (m.problem !== undefined) add().problem = m.problem;
    if (extra) extras.push([i, extra]);
  }
  return { n, num, kinds, extras };
}

export function decodeMetas(e: EncodedMetas): FrameMeta[] {
  const out: FrameMeta[] = new Array(e.n);
  for (let i = 0; i < e.n; i++) {
    const o = i * COLS;
    const id = e.num[o + 4];
    const meta: FrameMeta = {
      offset: e.num[o],
      bytes: e.num[o + 1],
      start: e.num[o + 2],
      t: e.num[o + 3],
      kind: KINDS[e.kinds[i]],
    };
    if (!Number.isNaN(id)) meta.id = id;
    out[i] = meta;
  }
  for (const [i, extra] of e.extras) Object.assign(out[i], extra);
  return out;
}
