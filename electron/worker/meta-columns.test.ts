import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAME_KIND_LIST } from '../../shared/frames.js';
import { ChunkReader } from '../engine/transport/frame-bytes.js';
import { decodeFrames, decodeMetas } from '../engine/transport/in-frame.js';
import type { EncodedMetas, FrameKind, FrameMeta } from '../wire/columns.js';
import { MetaColumns } from './meta-columns.js';

/** Frames as the outbox writes them, one push each, cut to size. */
function encodeMetas(metas: readonly FrameMeta[]): EncodedMetas {
  const cols = new MetaColumns(Math.max(1, metas.length));
  for (const m of metas) cols.push(m, m.offset, m.bytes, m.start, m.t);
  return cols.take();
}

/** Columns holding exactly the frames of `e` (copied), as an outbox holds a batch. */
function columnsOf(e: EncodedMetas): MetaColumns {
  const c = new MetaColumns(Math.max(1, e.n));
  c.num.set(e.num);
  c.kinds.set(e.kinds);
  c.extras = e.extras;
  c.n = e.n;
  return c;
}

const kinds: readonly FrameKind[] = FRAME_KIND_LIST;

const meta = fc.record(
  {
    offset: fc.nat(),
    bytes: fc.nat(),
    start: fc.integer({ min: -1000, max: 1 << 30 }),
    t: fc.double({ noNaN: true, noDefaultInfinity: true }),
    kind: fc.constantFrom(...kinds),
    id: fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string(),
      fc.constant(null),
    ),
    method: fc.oneof(fc.string(), fc.constant('notifications/progress')),
    error: fc.record({ code: fc.integer(), message: fc.string() }),
    progressToken: fc.oneof(fc.string(), fc.integer()),
    progress: fc.double({ noNaN: true }),
    total: fc.double({ noNaN: true }),
    problem: fc.string(),
  },
  { requiredKeys: ['offset', 'bytes', 'start', 't', 'kind'] },
);

describe('frame metadata codec', () => {
  it('round-trips any metadata exactly (ids: number, string, null or absent)', () => {
    fc.assert(
      fc.property(fc.array(meta, { maxLength: 50 }), (metas) => {
        const decoded = decodeMetas(encodeMetas(metas as FrameMeta[]));
        expect(decoded).toEqual(metas);
        for (let i = 0; i < metas.length; i++) {
          expect(Object.hasOwn(decoded[i], 'id')).toBe(Object.hasOwn(metas[i], 'id'));
        }
      }),
    );
  });

  it('carries a plain numeric-id response without any per-frame object', () => {
    const metas: FrameMeta[] = [{ offset: 0, bytes: 10, start: 0, t: 1, kind: 'response', id: 7 }];
    const e = encodeMetas(metas);
    expect(e.extras).toEqual({ rows: [], values: [] });
    expect(decodeMetas(e)[0]).toEqual(metas[0]);
  });

  it('a batch carries one object per method for frames that carry only a method', () => {
    const cols = new MetaColumns(8);
    const add = (c: Parameters<MetaColumns['push']>[0], i: number) => cols.push(c, i, 1, i, 0);
    add({ kind: 'notification', method: 'a' }, 0);
    add({ kind: 'notification', method: 'b' }, 1);
    add({ kind: 'request', method: 'a', id: 4 }, 2);
    add({ kind: 'notification', method: 'a', progress: 1 }, 3);
    add({ kind: 'request', method: 'a', id: 's' }, 4);
    const e = cols.take();
    const extraOf = (i: number) => e.extras.values[e.extras.rows.indexOf(i)];
    expect(extraOf(0)).toBe(extraOf(2)); // shared: posted once
    expect(extraOf(1)).not.toBe(extraOf(0));
    expect(extraOf(3)).toEqual({ method: 'a', progress: 1 }); // more than a method: its own
    expect(extraOf(4)).toEqual({ id: 's', method: 'a' });
    expect(decodeMetas(e).map((m) => [m.method, m.id, m.progress])).toEqual([
      ['a', undefined, undefined],
      ['b', undefined, undefined],
      ['a', 4, undefined],
      ['a', undefined, 1],
      ['a', 's', undefined],
    ]);
    cols.reset(); // the next batch: nothing shared with this one
    add({ kind: 'notification', method: 'a' }, 0);
    expect(cols.take().extras.values[0]).not.toBe(extraOf(0));
  });

  it('a batch carries one object per wording for frames that carry only a problem', () => {
    const cols = new MetaColumns(8);
    const add = (c: Parameters<MetaColumns['push']>[0], i: number) => cols.push(c, i, 1, i, 0);
    add({ kind: 'parse-error', problem: 'p' }, 0);
    add({ kind: 'parse-error', problem: 'p' }, 1);
    add({ kind: 'parse-error', problem: 'q' }, 2);
    add({ kind: 'invalid', problem: 'p', progress: 0 }, 3);
    add({ kind: 'invalid', problem: 'p', id: 's' }, 4);
    const e = cols.take();
    const extraOf = (i: number) => e.extras.values[e.extras.rows.indexOf(i)];
    expect(extraOf(0)).toBe(extraOf(1));
    expect(extraOf(2)).toEqual({ problem: 'q' });
    expect(extraOf(3)).toEqual({ problem: 'p', progress: 0 }); // more than a problem: its own
    expect(extraOf(4)).toEqual({ id: 's', problem: 'p' });
  });

  it('carries progress notifications as columns, exactly, through slices and a real clone', () => {
    // Mostly progress notifications that carry nothing else (the columns' case), among frames
    // that carry more: an id, a problem, another method, another kind.
    const progressMeta = fc
      .tuple(
        fc.record({
          offset: fc.nat(),
          bytes: fc.nat(),
          start: fc.nat(),
          t: fc.double({ noNaN: true, noDefaultInfinity: true }),
          kind: fc.constantFrom<FrameKind>('notification', 'notification', 'request'),
          method: fc.constantFrom('notifications/progress', 'notifications/progress', 'x/y'),
          id: fc.oneof(fc.integer(), fc.string()),
          progressToken: fc.oneof(fc.string(), fc.integer()),
          progress: fc.double({ noNaN: true }),
          total: fc.double({ noNaN: true }),
          problem: fc.string(),
        }),
        // An id or a problem only when listed here; progress fields unless listed.
        fc.array(fc.constantFrom('id', 'problem', 'progressToken', 'progress', 'total')),
      )
      .map(([m, toggled]) => {
        const out: Partial<typeof m> = { ...m };
        for (const k of ['id', 'problem'] as const) if (!toggled.includes(k)) delete out[k];
        for (const k of ['progressToken', 'progress', 'total'] as const) {
          if (toggled.includes(k)) delete out[k];
        }
        return out;
      });
    fc.assert(
      fc.property(fc.array(progressMeta, { maxLength: 40 }), fc.nat(), (metas, cut) => {
        const cols = columnsOf(encodeMetas(metas as FrameMeta[]));
        const a = cut % (metas.length + 1);
        for (const [from, to] of [
          [0, metas.length],
          [0, a],
          [a, metas.length],
        ]) {
          const e = structuredClone(cols.take(from, to));
          expect(decodeMetas(e)).toEqual(metas.slice(from, to));
        }
      }),
    );
  });

  it('a progress flood posts no object per frame', () => {
    const cols = new MetaColumns(8);
    for (let i = 0; i < 1000; i++) {
      const c = { kind: 'notification' as const, method: 'notifications/progress' };
      cols.push({ ...c, progressToken: 'tok', progress: i, total: 1000 }, i * 90, 89, i * 90, i);
    }
    const e = cols.take();
    expect(e.extras.values).toEqual([]);
    expect(e.extras.progress?.rows.length).toBe(1000);
    expect(decodeMetas(e)[999]).toEqual({
      offset: 999 * 90,
      bytes: 89,
      start: 999 * 90,
      t: 999,
      kind: 'notification',
      method: 'notifications/progress',
      progressToken: 'tok',
      progress: 999,
      total: 1000,
    });
  });

  it('take writes into handed-back buffers when they are large enough, else into new ones', () => {
    fc.assert(
      fc.property(
        fc.array(meta, { maxLength: 50 }),
        fc.nat({ max: 60 }),
        fc.nat({ max: 60 }),
        fc.integer({ min: -2, max: 2 }),
        (metas, spareFrames, from, kindsSkew) => {
          const cols = columnsOf(encodeMetas(metas as FrameMeta[]));
          const a = Math.min(from, metas.length);
          // (Main hands back pairs from one batch; a pair of unequal sizes must not pass either.)
          const spareKinds = Math.max(0, spareFrames + kindsSkew);
          const spare = {
            num: new Float64Array(spareFrames * 5).fill(-1).buffer,
            kinds: new Uint8Array(spareKinds).fill(255).buffer,
          };
          const e = cols.take(a, metas.length, spare);
          const n = metas.length - a;
          expect(e.num.length).toBe(n * 5);
          expect(e.kinds.length).toBe(n);
          // Into the spare when both of its buffers hold the n frames; never a partial reuse.
          const reused = spareFrames >= n && spareKinds >= n;
          expect(e.num.buffer === spare.num).toBe(reused);
          expect(e.kinds.buffer === spare.kinds).toBe(reused);
          expect(decodeMetas(e)).toEqual(decodeMetas(cols.take(a, metas.length)));
        },
      ),
    );
  });

  it('decodeFrames gives each frame its metadata and its bytes, wherever the chunks were cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(meta, fc.uint8Array({ maxLength: 40 })), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (items, cuts) => {
          // The frames' bytes one after another (a newline between), as a batch carries them.
          const metas: FrameMeta[] = [];
          const parts: Buffer[] = [];
          let at = 0;
          for (const [m, bytes] of items) {
            metas.push({ ...(m as FrameMeta), start: at, bytes: bytes.length });
            parts.push(Buffer.from(bytes), Buffer.from('\n'));
            at += bytes.length + 1;
          }
          const all = Buffer.concat(parts);
          const bounds = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
          const chunks: ArrayBuffer[] = [];
          let from = 0;
          for (const b of [...bounds, all.length]) {
            if (b <= from && !(b === all.length && chunks.length === 0)) continue;
            chunks.push(new Uint8Array(all.subarray(from, b)).buffer);
            from = b;
          }
          const e = encodeMetas(metas);
          const frames = decodeFrames(e, new ChunkReader(chunks));
          expect(frames.map((f) => Buffer.from(f.data.toString('latin1'), 'latin1'))).toEqual(
            items.map(([, b]) => Buffer.from(b)),
          );
          expect(decodeMetas(e)).toEqual(decodeMetas(encodeMetas(metas)));
          expect(frames.map((f) => [f.offset, f.bytes, f.start, f.kind, f.id, f.method])).toEqual(
            decodeMetas(e).map((m) => [m.offset, m.bytes, m.start, m.kind, m.id, m.method]),
          );
        },
      ),
    );
  });
});
