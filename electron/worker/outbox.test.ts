import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedBytes, ChunkReader, type FrameBytes } from '../engine/frame-bytes.js';
import { decodeMetas, type LineRows } from '../engine/frame-codec.js';
import type { FrameMeta } from '../engine/worker-protocol.js';
import { Outbox, type OutboxOptions, type Piece, type PostedBatch } from './outbox.js';

const KiB = 1024;
const MiB = 1024 * KiB;

interface Posted extends PostedBatch {
  frames: FrameMeta[];
}

interface Harness {
  box: Outbox;
  posts: Posted[];
  clock: { t: number };
  overloads: number;
  sealed: Buffer[];
}

function make(opts: Partial<Omit<OutboxOptions, 'post' | 'now'>> = {}): Harness {
  const posts: Posted[] = [];
  const clock = { t: 0 };
  const h: Harness = {
    box: undefined as unknown as Outbox,
    posts,
    clock,
    overloads: 0,
    sealed: [],
  };
  const onOverload = opts.onOverload ?? ((): boolean => false);
  h.box = new Outbox({
    creditFrames: opts.creditFrames ?? 1000,
    creditBytes: opts.creditBytes ?? 64 * MiB,
    spillMaxBytes: opts.spillMaxBytes ?? 64 * MiB,
    now: () => clock.t,
    post: (batch) => posts.push({ ...batch, frames: decodeMetas(batch.metas) }),
    onOverload: () => {
      h.overloads += 1;
      return onOverload();
    },
    onSeal: (chunk) => {
      h.sealed.push(chunk);
    },
  });
  return h;
}

/** A chunk that owns its ArrayBuffer, as a pipe read does. */
function own(text: string | Buffer): Buffer {
  const src = typeof text === 'string' ? Buffer.from(text) : text;
  const b = Buffer.allocUnsafeSlow(src.length);
  src.copy(b);
  return b;
}

let offset = 0;
/** A frame that is a whole chunk of its own. */
function add(h: Harness, data: Buffer): void {
  h.box.addLine({ kind: 'response' }, data, 0, data.length, offset, 0);
  offset += data.length + 1;
}

/** A frame that arrived over several chunks. */
function addPieces(h: Harness, pieces: Piece[], bytes: number): void {
  h.box.addSpanning({ kind: 'response', id: 9 }, pieces, bytes, offset, 0);
  offset += bytes + 1;
}

/** Frames as main cuts them out of a batch (transport.ts does the same). */
function bytesOf(p: Posted): FrameBytes[] {
  const reader = new ChunkReader(p.buffers);
  return p.frames.map((m) => reader.read(m.start, m.bytes));
}

function framesOf(p: Posted): Buffer[] {
  return bytesOf(p).map((d) => (d instanceof ChunkedBytes ? d.toBuffer() : d));
}

const postedFrames = (h: Harness): number => h.posts.reduce((a, p) => a + p.frames.length, 0);

describe('Outbox credits', () => {
  it('posts no more frames than the frame credit allows', () => {
    const h = make({ creditFrames: 2 });
    for (let i = 0; i < 5; i++) add(h, Buffer.from(`f${i}`));
    h.box.flush();
    expect(postedFrames(h)).toBe(2);
    expect(h.box.outstandingFrames).toBe(2);
    expect(h.box.spillFrames).toBe(3);
    h.box.credit(1, 2);
    h.box.flush();
    expect(postedFrames(h)).toBe(3);
    h.box.credit(2, 4);
    h.box.flush();
    expect(postedFrames(h)).toBe(5);
    expect(h.posts.flatMap(framesOf).map((b) => b.toString())).toEqual([
      'f0',
      'f1',
      'f2',
      'f3',
      'f4',
    ]);
  });

  it('posts no more bytes than the byte credit allows', () => {
    const h = make({ creditBytes: 100 });
    for (let i = 0; i < 4; i++) add(h, Buffer.alloc(40, 0x61 + i));
    h.box.flush();
    // One batch of 160 bytes, nothing in flight: cut to what fits.
    expect(postedFrames(h)).toBe(2);
    h.box.credit(1, 40); // 60 bytes free: one more frame would fit...
    h.box.flush();
    // ...but the rest waits for the frame still in flight, then goes whole.
    expect(postedFrames(h)).toBe(2);
    h.box.credit(1, 40);
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([2, 2]);
  });

  it('waits for the batches in flight rather than cutting one that does not fit', () => {
    const h = make({ creditFrames: 8 }); // batches of 2 frames
    const chunks = Array.from({ length: 6 }, (_, i) => own(`c${i}`));
    for (const c of chunks) h.box.addLine({ kind: 'response' }, c, 0, 2, 0, 0);
    // A chunk with 3 lines: its batch (never cut between chunks) holds 3 frames.
    const three = own('x\ny\nz');
    for (let i = 0; i < 3; i++) h.box.addLine({ kind: 'response' }, three, i * 2, i * 2 + 1, 0, 0);
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([2, 2, 2]); // 6 of 8 credits used
    expect(h.box.spillFrames).toBe(3); // 2 credits free: not cut, it waits
    h.box.flush();
    expect(h.box.spillFrames).toBe(3);
    h.box.credit(2, 4);
    h.box.flush();
    // 4 credits free: the batch of 3 goes whole, its chunk not copied.
    expect(h.posts.map((p) => p.frames.length)).toEqual([2, 2, 2, 3]);
    expect(h.posts[3].buffers).toEqual([three.buffer]);
  });

  it('credits never exceed the configured limit', () => {
    const h = make({ creditFrames: 2, creditBytes: 100 });
    h.box.credit(50, 5000);
    for (let i = 0; i < 5; i++) add(h, Buffer.alloc(10));
    h.box.flush();
    expect(postedFrames(h)).toBe(2);
  });

  it('lets a frame larger than the whole byte credit go alone when nothing is outstanding', () => {
    const h = make({ creditBytes: 100 });
    add(h, Buffer.alloc(500, 0x62));
    add(h, Buffer.alloc(10, 0x63));
    h.box.flush();
    expect(h.posts).toHaveLength(1);
    expect(h.posts[0].frames.map((m) => m.bytes)).toEqual([500]);
    // The small one waits until the big one is credited back.
    expect(h.box.spillFrames).toBe(1);
    h.box.credit(1, 500);
    h.box.flush();
    expect(postedFrames(h)).toBe(2);
  });

  it('holds a frame larger than the byte credit while something is outstanding', () => {
    const h = make({ creditBytes: 100 });
    add(h, Buffer.alloc(10));
    add(h, Buffer.alloc(500));
    h.box.flush();
    expect(postedFrames(h)).toBe(1);
    h.box.flush();
    expect(postedFrames(h)).toBe(1);
    h.box.credit(1, 10);
    h.box.flush();
    expect(postedFrames(h)).toBe(2);
    expect(h.posts[1].frames[0].bytes).toBe(500);
  });
});

describe('Outbox dispatcher wait', () => {
  it('measures the time spent out of credits with frames waiting', () => {
    const h = make({ creditFrames: 1 });
    add(h, Buffer.from('a'));
    add(h, Buffer.from('b'));
    h.clock.t = 100;
    h.box.flush(); // 'a' goes, 'b' waits from t=100
    expect(h.box.waitMs).toBe(0);
    h.clock.t = 130;
    expect(h.box.currentWaitMs()).toBe(30);
    expect(h.box.currentLongestWaitMs()).toBe(30);
    h.clock.t = 150;
    h.box.flush(); // still no credit: the same episode goes on
    h.box.credit(1, 1);
    h.clock.t = 160;
    h.box.flush();
    expect(h.box.waitMs).toBe(60);
    expect(h.box.longestWaitMs).toBe(60);
    expect(h.box.currentWaitMs()).toBe(60);

    add(h, Buffer.from('c'));
    h.box.flush(); // waits from t=160
    h.clock.t = 180;
    h.box.credit(1, 1);
    h.box.flush();
    expect(h.box.waitMs).toBe(80);
    expect(h.box.longestWaitMs).toBe(60);
  });

  it('does not count time out of credits with nothing waiting', () => {
    const h = make({ creditFrames: 1 });
    add(h, Buffer.from('a'));
    h.box.flush();
    h.clock.t = 1000;
    h.box.flush();
    expect(h.box.currentWaitMs()).toBe(0);
    expect(h.box.waitMs).toBe(0);
  });
});

describe('Outbox spill', () => {
  it('calls onOverload past the spill bound and drops the frame, counted', () => {
    const h = make({ creditFrames: 1, spillMaxBytes: 100 });
    add(h, Buffer.alloc(40));
    h.box.flush(); // posted: the spill is empty again
    add(h, Buffer.alloc(40));
    add(h, Buffer.alloc(40));
    expect(h.overloads).toBe(0);
    add(h, Buffer.alloc(30));
    expect(h.overloads).toBe(1);
    expect(h.box.droppedFrames).toBe(1);
    expect(h.box.droppedBytes).toBe(30);
    expect(h.box.spillFrames).toBe(2);
    expect(h.box.spillBytes).toBe(80);
    add(h, Buffer.alloc(20)); // exactly at the bound: kept
    expect(h.box.spillBytes).toBe(100);
    expect(h.box.droppedFrames).toBe(1);
    expect(h.box.maxSpillFrames).toBe(3);
  });

  it('keeps the frame when onOverload returns true (pause policy)', () => {
    const h = make({ creditFrames: 1, spillMaxBytes: 50, onOverload: () => true });
    add(h, Buffer.alloc(40));
    add(h, Buffer.alloc(40));
    expect(h.overloads).toBe(1);
    expect(h.box.droppedFrames).toBe(0);
    expect(h.box.spillFrames).toBe(2);
    expect(h.box.spillBytes).toBe(80);
  });

  it('a spanning frame with no pieces is no frame: the spill counters do not move', () => {
    const h = make();
    h.box.addSpanning({ kind: 'response' }, [], 10, 0, 0);
    expect(h.box.spillFrames).toBe(0);
    expect(h.box.spillBytes).toBe(0);
    expect(h.box.busy).toBe(false);
  });

  it('always accepts one frame into an empty spill, however large', () => {
    const h = make({ spillMaxBytes: 10 });
    add(h, Buffer.alloc(1000));
    expect(h.overloads).toBe(0);
    expect(h.box.spillFrames).toBe(1);
  });
});

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
    expect(p.buffers).toEqual([a.buffer, b.buffer]);
    expect(p.frames.map((m) => m.start)).toEqual([0, a.length]);
    expect(framesOf(p).map(String)).toEqual(['{"a":1}', '{"bb":22}']);
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
    for (let i = 0; i < 3; i++)
      h.box.addLine({ kind: 'response' }, chunk, i * 8, i * 8 + 7, i * 8, 0);
    const big: Piece[] = [
      { chunk, start: 24, end: chunk.length },
      { chunk: Buffer.alloc(300 * KiB, 0x31), start: 0, end: 300 * KiB },
    ];
    addPieces(h, big, 300 * KiB + 100);
    h.box.flush();
    expect(postedFrames(h)).toBe(2);
    expect(h.posts[0].buffers).toEqual([chunk.buffer]);
    h.box.credit(2, 14);
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([2, 2]);
    const second = h.posts[1];
    expect(second.buffers[0]).not.toBe(chunk.buffer); // a copy of '{"c":3}\n' + the line's start
    expect(second.buffers[1]).toBe(big[1].chunk.buffer);
    const all = h.posts.flatMap(framesOf);
    expect(all.map((f) => (f.length < 10 ? f.toString() : `${f.length}:${f[0]}`))).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
      `${300 * KiB + 100}:${0x31}`,
    ]);
  });

  it('seals batches at a quarter of the frame credit (between chunks), so few need cutting', () => {
    const h = make({ creditFrames: 400 });
    for (let i = 0; i < 250; i++) add(h, own('x'));
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([100, 100, 50]);
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
          const rows: LineRows = {
            startAt: (r) => starts[r],
            endAt: (r) => starts[r] + lengths[r],
            idAt: (r) => r * 3,
          };
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

describe('Outbox lifecycle', () => {
  it('reports busy while frames are spilled or unacknowledged', () => {
    const h = make({ creditFrames: 1 });
    expect(h.box.busy).toBe(false);
    add(h, Buffer.from('a'));
    expect(h.box.busy).toBe(true);
    h.box.flush();
    expect(h.box.spillFrames).toBe(0);
    expect(h.box.busy).toBe(true);
    h.box.credit(1, 1);
    expect(h.box.busy).toBe(false);
  });

  it('releaseAll flushes everything whatever the credits, and stops waiting', () => {
    const h = make({ creditFrames: 1, creditBytes: 10 });
    for (let i = 0; i < 5; i++) add(h, Buffer.alloc(8, 0x30 + i));
    h.box.flush();
    expect(postedFrames(h)).toBe(1);
    h.clock.t = 40;
    h.box.releaseAll();
    expect(postedFrames(h)).toBe(5);
    expect(h.box.spillFrames).toBe(0);
    expect(h.box.spillBytes).toBe(0);
    expect(h.box.busy).toBe(false);
    expect(h.box.waitMs).toBe(40);
    expect(h.box.currentWaitMs()).toBe(40);
    expect(h.posts.flatMap(framesOf).map((f) => f[0])).toEqual([0x30, 0x31, 0x32, 0x33, 0x34]);
    // Frames added after the release still go out at once.
    add(h, Buffer.from('late'));
    h.box.credit(1, 4);
    h.box.flush();
    expect(postedFrames(h)).toBe(6);
  });
});
