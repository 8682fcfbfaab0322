import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrayRows } from '../../test/fixtures/array-rows.js';
import {
  add,
  addPieces,
  bytesOf,
  CUT_FRAMES,
  cutByCredits,
  cutFrames,
  framesOf,
  KiB,
  MiB,
  make,
  own,
  postedFrames,
} from '../../test/fixtures/outbox-harness.js';
import { ChunkedBytes, ChunkReader } from '../engine/transport/frame-bytes.js';
import { decodeFrames } from '../engine/transport/in-frame.js';
import { Outbox } from './outbox.js';
import { packed } from './outbox-batch.js';

describe('Outbox batches', () => {
  it('carries the lines of a chunk in that very chunk, transferred (no copy)', () => {
    const h = make();
    const chunk = own('{"a":1}\n{"b":2}\r\n{"c":3}\n{"partial');
    h.box.addLine({ kind: 'response' }, chunk, 0, 7, 0, 0);
    h.box.addLine({ kind: 'response' }, chunk, 8, 15, 8, 0);
    h.box.addLine({ kind: 'response' }, chunk, 17, 24, 17, 0);
    h.box.flush();
    expect(h.posts).toHaveLength(1);
    const p = h.posts[0];
    expect(p.buffers).toEqual([chunk.buffer]);
    expect(p.buffers[0]).toBe(chunk.buffer);
    expect(p.transfer).toContain(chunk.buffer);
    expect(p.frames.map((m) => m.start)).toEqual([0, 8, 17]);
    expect(framesOf(p).map(String)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    // The last chunk of a sealed batch is offered to the owner of a line still arriving.
    expect(h.sealed).toEqual([chunk]);
  });

  it('places frames of consecutive chunks at their position in the chunks taken as one run', () => {
    const h = make();
    const a = own('{"a":1}');
    const b = own('{"bb":22}');
    add(h, a);
    add(h, b);
    h.box.flush();
    const p = h.posts[0];
    // Small chunks (a line per pipe read) travel packed into one buffer, in order.
    expect(p.buffers).toHaveLength(1);
    expect(p.buffers[0].byteLength).toBe(a.length + b.length);
    expect(p.transfer).not.toContain(a.buffer);
    expect(p.frames.map((m) => m.start)).toEqual([0, a.length]);
    expect(framesOf(p).map(String)).toEqual(['{"a":1}', '{"bb":22}']);
  });

  it('packs many small chunks, never large ones (a copy would cost more than their transfer)', () => {
    const small = Array.from({ length: 40 }, (_, i) => own(`{"n":${i}}`));
    expect(packed(small.map((c) => c.buffer as ArrayBuffer))).toHaveLength(1);
    const big = [own('x'.repeat(40 * KiB)), own('y')].map((c) => c.buffer as ArrayBuffer);
    expect(packed(big)).toEqual(big); // 20 KiB a chunk on average: as they are
    const many = Array.from({ length: 80 }, () => own('z'.repeat(15 * KiB)));
    const bufs = many.map((c) => c.buffer as ArrayBuffer);
    expect(packed(bufs)).toEqual(bufs); // 1.2 MiB in all: over what one copy may take
    const one = packed(small.map((c) => c.buffer as ArrayBuffer))[0];
    expect(Buffer.from(one as ArrayBuffer).toString()).toBe(small.map(String).join(''));
  });

  it('copies a chunk that is not its own whole ArrayBuffer (never transfers foreign bytes)', () => {
    const h = make();
    const backing = Buffer.alloc(2 * MiB, 0x41);
    const view = backing.subarray(100, 100 + 300 * KiB);
    add(h, view);
    add(h, Buffer.from('pooled')); // a small Buffer.from shares the 8 KiB pool
    h.box.flush();
    const [ab, pooled] = h.posts[0].buffers;
    expect(ab).not.toBe(backing.buffer);
    expect(ab.byteLength).toBe(300 * KiB);
    expect(pooled.byteLength).toBe(6);
    expect(framesOf(h.posts[0])[0].equals(view)).toBe(true);
    expect(framesOf(h.posts[0])[1].toString()).toBe('pooled');
  });

  it('sends a frame that spanned chunks as those chunks: never joined, never copied', () => {
    const h = make();
    add(h, own('first'));
    const c1 = Buffer.alloc(64 * KiB + 10, 0x61);
    const c2 = Buffer.alloc(192 * KiB, 0x62);
    const c3 = own('ccc\r\n{"next":1}');
    addPieces(
      h,
      [
        { chunk: c1, start: 10, end: c1.length },
        { chunk: c2, start: 0, end: c2.length },
        { chunk: c3, start: 0, end: 4 },
      ],
      256 * KiB + 3,
    );
    h.box.addLine({ kind: 'response' }, c3, 5, 15, 0, 0);
    h.box.flush();
    expect(h.posts).toHaveLength(1);
    const p = h.posts[0];
    expect(p.buffers[1]).toBe(c1.buffer);
    expect(p.buffers[2]).toBe(c2.buffer);
    expect(p.buffers[3]).toBe(c3.buffer);
    expect(new Set(p.transfer).size).toBe(p.transfer.length);
    const data = bytesOf(p);
    expect(data[1]).toBeInstanceOf(ChunkedBytes);
    expect((data[1] as ChunkedBytes).chunks).toHaveLength(3);
    expect(data[1].length).toBe(256 * KiB + 3);
    expect(data[1].subarray(256 * KiB - 1).toString()).toBe('bccc'); // the \r is left out
    expect(framesOf(p).map((f) => (f.length < 20 ? f.toString() : f.length))).toEqual([
      'first',
      256 * KiB + 3,
      '{"next":1}',
    ]);
  });

  it('splits small frames into batches of at most 8192 frames', () => {
    const h = make({ creditFrames: 100_000 });
    for (let i = 0; i < 10_000; i++) add(h, own('x'));
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([8192, 1808]);
  });

  it('starts a new batch once its chunks hold 4 MiB (between chunks)', () => {
    const h = make();
    for (let i = 0; i < 20; i++) add(h, Buffer.alloc(250 * KiB, i));
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([17, 3]);
    const frames = h.posts.flatMap(framesOf);
    expect(frames.map((f) => f[0])).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('never seals a batch in the middle of a chunk, however many lines it holds', () => {
    const h = make({ creditFrames: 100_000 });
    const chunk = own('1\n'.repeat(9000));
    for (let i = 0; i < 9000; i++)
      h.box.addLine({ kind: 'response' }, chunk, i * 2, i * 2 + 1, i * 2, 0);
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([9000]);
  });

  it('a batch cut by credits copies the chunk both halves need, for the second', () => {
    const h = make({ creditFrames: 2 });
    // Three lines and the start of a 300 KiB one in the first chunk: one batch (never cut
    // between frames of one chunk when it is sealed), then cut by the credit of 2.
    const chunk = own(`{"a":1}\n{"b":2}\n{"c":3}\n${'1'.repeat(100)}`);
    const rest = Buffer.alloc(300 * KiB, 0x31);
    cutByCredits(h, chunk, rest);
    expect(h.posts[0].buffers).toEqual([chunk.buffer]);
    const second = h.posts[1];
    expect(second.buffers[0]).not.toBe(chunk.buffer); // a copy of '{"c":3}\n' + the line's start
    expect(second.buffers[1]).toBe(rest.buffer);
    expect(cutFrames(h)).toEqual(CUT_FRAMES);
  });

  it('cuts the rest again where it still shares the chunk, from its own copy, with real transfers', () => {
    // Ten lines in one chunk: one batch, cut to the credit of 2 again and again. The first post
    // transfers (detaches) the chunk: every later cut must read the rest's copy of it.
    const lines = Array.from({ length: 10 }, (_, i) => `{"n":${i}}`);
    const chunk = own(`${lines.join('\n')}\n`);
    const got: string[] = [];
    const box = new Outbox({
      creditFrames: 2,
      creditBytes: MiB,
      spillMaxBytes: MiB,
      now: () => 0,
      post: ({ metas, buffers, transfer }) => {
        const msg = structuredClone({ metas, buffers }, { transfer });
        for (const f of decodeFrames(msg.metas, new ChunkReader(msg.buffers))) {
          got.push(f.data.toString());
        }
      },
      onOverload: () => true,
    });
    let at = 0;
    for (const line of lines) {
      box.addLine({ kind: 'response' }, chunk, at, at + line.length, at, 0);
      at += line.length + 1;
    }
    box.flush();
    for (let i = 0; i < 4; i++) {
      box.credit(2, 20);
      box.flush();
    }
    expect(chunk.buffer.byteLength).toBe(0); // (it left with the first post)
    expect(got).toEqual(lines);
  });

  it('seals batches at a quarter of the frame credit (between chunks), so few need cutting', () => {
    const h = make({ creditFrames: 400 });
    for (let i = 0; i < 250; i++) add(h, own('x'));
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([100, 100, 50]);
  });
});

describe('Outbox metadata buffers', () => {
  it('writes the next batches into column buffers main handed back, when they hold the batch', () => {
    const h = make({ creditFrames: 8 }); // batches of 2 frames
    const spare = (frames: number) => ({
      num: new ArrayBuffer(frames * 5 * 8),
      kinds: new ArrayBuffer(frames),
    });
    const big = spare(2);
    const small = spare(1);
    h.box.recycle([small, big]);
    for (let i = 0; i < 6; i++) add(h, Buffer.from(`f${i}`));
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([2, 2, 2]);
    // Last handed back, first used; one too small for a batch is not used (nor kept).
    expect(h.posts[0].metas.num.buffer).toBe(big.num);
    expect(h.posts[0].metas.kinds.buffer).toBe(big.kinds);
    expect(h.posts[1].metas.num.buffer).not.toBe(small.num);
    expect(h.posts[2].metas.num.buffer).not.toBe(small.num);
    // The reused buffer travels in the transfer list like a new one.
    expect(h.posts[0].transfer).toContain(big.num);
    expect(h.posts.flatMap(framesOf).map((f) => f.toString())).toEqual(
      Array.from({ length: 6 }, (_, i) => `f${i}`),
    );
  });
});

describe('Outbox column memory', () => {
  it('batches sealed small wait with columns of their own size, not a full batch each', () => {
    const h = make({ creditFrames: 4096, creditBytes: 1 }); // batches of 1,024 frames
    add(h, Buffer.alloc(2, 0x61)); // takes the only byte credit... and more: goes alone
    h.box.flush();
    expect(postedFrames(h)).toBe(1);
    // A server writing one line per read, each flushed (sealed) while no credit is left.
    for (let i = 0; i < 500; i++) {
      add(h, Buffer.from(`line ${i}`));
      h.box.flush();
    }
    expect(postedFrames(h)).toBe(1);
    const queue = (h.box as unknown as { queue: { cols: { capacity: number; n: number } }[] })
      .queue;
    expect(queue.length).toBe(500);
    // All but the head, which is posted first (and whose columns are then reused).
    for (const b of queue.slice(1)) expect(b.cols.capacity).toBeLessThanOrEqual(2 * b.cols.n + 64);
    // Nothing lost or reordered by the compaction.
    h.box.releaseAll();
    expect(h.posts.flatMap(framesOf).map((f) => f.toString())).toEqual([
      'aa',
      ...Array.from({ length: 500 }, (_, i) => `line ${i}`),
    ]);
  });
});

describe('Outbox runs of plain responses', () => {
  it('addResponses is addLine for each row, spill bound and overload policy included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 1500 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 5 }),
        (lengths, spillMaxBytes, keep, lead) => {
          // One chunk of lines; rows [lead, n) are the run (a few lines before it, one by one).
          const starts: number[] = [];
          let at = 0;
          for (const n of lengths) {
            starts.push(at);
            at += n + 1;
          }
          const chunk = own(Buffer.alloc(at, 0x61));
          const rows = new ArrayRows(
            starts,
            starts.map((s, r) => s + lengths[r]),
            starts.map((_, r) => r * 3),
          );
          const r0 = Math.min(lead, lengths.length);
          const run = (bulk: boolean) => {
            const h = make({ creditFrames: 4, spillMaxBytes, onOverload: () => keep });
            for (let r = 0; r < lengths.length; r++) {
              if (bulk && r === r0) {
                let bytes = 0;
                for (let k = r0; k < lengths.length; k++) bytes += lengths[k];
                h.box.addResponses(chunk, rows, r0, lengths.length, bytes, 1000, 5);
                break;
              }
              h.box.addLine(
                null,
                chunk,
                starts[r],
                starts[r] + lengths[r],
                1000 + starts[r],
                5,
                r * 3,
              );
            }
            const spill = [h.box.spillFrames, h.box.spillBytes, h.box.maxSpillFrames];
            const dropped = [h.box.droppedFrames, h.box.droppedBytes, h.overloads];
            h.box.releaseAll();
            const frames = h.posts.flatMap((p) => {
              const data = framesOf(p);
              return p.frames.map((m, i) => ({ ...m, data: data[i].toString() }));
            });
            return { spill, dropped, frames };
          };
          expect(run(true)).toEqual(run(false));
        },
      ),
      { numRuns: 300 },
    );
  });
});
