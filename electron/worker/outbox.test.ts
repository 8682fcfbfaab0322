import { describe, expect, it } from 'vitest';
import type { FrameMeta } from '../engine/worker-protocol.js';
import { Outbox, type OutboxOptions } from './outbox.js';

const KiB = 1024;
const MiB = 1024 * KiB;

interface Posted {
  metas: FrameMeta[];
  buffer: ArrayBuffer;
  big: ArrayBuffer[];
}

interface Harness {
  box: Outbox;
  posts: Posted[];
  clock: { t: number };
  overloads: number;
}

function make(opts: Partial<Omit<OutboxOptions, 'post' | 'now'>> = {}): Harness {
  const posts: Posted[] = [];
  const clock = { t: 0 };
  const h: Harness = { box: undefined as unknown as Outbox, posts, clock, overloads: 0 };
  const onOverload = opts.onOverload ?? ((): boolean => false);
  h.box = new Outbox({
    creditFrames: opts.creditFrames ?? 1000,
    creditBytes: opts.creditBytes ?? 64 * MiB,
    spillMaxBytes: opts.spillMaxBytes ?? 64 * MiB,
    now: () => clock.t,
    post: (metas, buffer, big) => posts.push({ metas, buffer, big }),
    onOverload: () => {
      h.overloads += 1;
      return onOverload();
    },
  });
  return h;
}

let offset = 0;
function meta(bytes: number): FrameMeta {
  offset += bytes + 1;
  return { offset, bytes, start: 0, kind: 'response', t: 0 };
}

function add(h: Harness, data: Buffer): void {
  h.box.add(meta(data.length), data);
}

/** Frames as main would rebuild them from a batch. */
function framesOf(p: Posted): Buffer[] {
  return p.metas.map((m) =>
    m.start >= 0
      ? Buffer.from(p.buffer, m.start, m.bytes)
      : Buffer.from(p.big[-1 - m.start], 0, m.bytes),
  );
}

const postedFrames = (h: Harness): number => h.posts.reduce((a, p) => a + p.metas.length, 0);

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
    expect(postedFrames(h)).toBe(2);
    h.box.credit(1, 20); // 40 bytes available: one more 40-byte frame fits
    h.box.flush();
    expect(postedFrames(h)).toBe(3);
    h.box.flush();
    expect(postedFrames(h)).toBe(3);
    h.box.credit(2, 80);
    h.box.flush();
    expect(postedFrames(h)).toBe(4);
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
    expect(h.posts[0].metas.map((m) => m.bytes)).toEqual([500]);
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
    expect(h.posts[1].metas[0].bytes).toBe(500);
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

  it('always accepts one frame into an empty spill, however large', () => {
    const h = make({ spillMaxBytes: 10 });
    add(h, Buffer.alloc(1000));
    expect(h.overloads).toBe(0);
    expect(h.box.spillFrames).toBe(1);
  });
});

describe('Outbox batches', () => {
  it('puts small frames in one copied buffer with their positions', () => {
    const h = make();
    const a = Buffer.from('{"a":1}');
    const b = Buffer.from('{"bb":22}');
    add(h, a);
    add(h, b);
    h.box.flush();
    expect(h.posts).toHaveLength(1);
    const p = h.posts[0];
    expect(p.big).toEqual([]);
    expect(p.buffer.byteLength).toBe(a.length + b.length);
    expect(p.metas.map((m) => m.start)).toEqual([0, a.length]);
    a.fill(0);
    b.fill(0);
    expect(framesOf(p).map(String)).toEqual(['{"a":1}', '{"bb":22}']);
  });

  it('sends a frame of 256 KiB or more in its own transferred ArrayBuffer', () => {
    const h = make();
    const small1 = Buffer.from('first');
    const big = Buffer.alloc(256 * KiB, 0x7a); // owns its ArrayBuffer
    const small2 = Buffer.from('second');
    add(h, small1);
    add(h, big);
    add(h, small2);
    h.box.flush();
    expect(h.posts).toHaveLength(1);
    const p = h.posts[0];
    expect(p.big).toHaveLength(1);
    expect(p.big[0]).toBe(big.buffer);
    expect(p.metas.map((m) => m.start)).toEqual([0, -1, small1.length]);
    expect(p.buffer.byteLength).toBe(small1.length + small2.length);
    const frames = framesOf(p);
    expect(frames[0].toString()).toBe('first');
    expect(frames[1].equals(big)).toBe(true);
    expect(frames[2].toString()).toBe('second');
  });

  it('sends just under 256 KiB in the copied buffer', () => {
    const h = make();
    add(h, Buffer.alloc(256 * KiB - 1));
    h.box.flush();
    expect(h.posts[0].big).toEqual([]);
    expect(h.posts[0].buffer.byteLength).toBe(256 * KiB - 1);
  });

  it('copies a big frame that is a view into a larger buffer (never transfers foreign bytes)', () => {
    const h = make();
    const backing = Buffer.alloc(2 * MiB, 0x41);
    const view = backing.subarray(100, 100 + 300 * KiB);
    add(h, view);
    h.box.flush();
    const ab = h.posts[0].big[0];
    expect(ab).not.toBe(backing.buffer);
    expect(ab.byteLength).toBe(300 * KiB);
    expect(Buffer.from(ab).equals(view)).toBe(true);
  });

  it('copies a big frame at the start of a larger buffer (no spare bytes transferred)', () => {
    const h = make();
    const backing = Buffer.alloc(2 * MiB, 0x43);
    const head = backing.subarray(0, 300 * KiB);
    add(h, head);
    h.box.flush();
    const ab = h.posts[0].big[0];
    expect(ab).not.toBe(backing.buffer);
    expect(ab.byteLength).toBe(300 * KiB);
  });

  it('transfers a big frame whose buffer has one spare byte (a stripped \\r)', () => {
    const h = make();
    const withCr = Buffer.alloc(300 * KiB + 1, 0x42);
    const frame = withCr.subarray(0, 300 * KiB);
    add(h, frame);
    h.box.flush();
    expect(h.posts[0].big[0]).toBe(withCr.buffer);
    expect(framesOf(h.posts[0])[0].length).toBe(300 * KiB);
  });

  it('splits small frames into batches of at most 8192 frames', () => {
    const h = make({ creditFrames: 100_000 });
    for (let i = 0; i < 10_000; i++) add(h, Buffer.from('x'));
    h.box.flush();
    expect(h.posts.map((p) => p.metas.length)).toEqual([8192, 1808]);
  });

  it('splits copied bytes into batches of at most 4 MiB', () => {
    const h = make();
    for (let i = 0; i < 20; i++) add(h, Buffer.alloc(250 * KiB, i));
    h.box.flush();
    expect(h.posts.map((p) => p.metas.length)).toEqual([16, 4]);
    for (const p of h.posts) expect(p.buffer.byteLength).toBeLessThanOrEqual(4 * MiB);
    const frames = h.posts.flatMap(framesOf);
    expect(frames.map((f) => f[0])).toEqual(Array.from({ length: 20 }, (_, i) => i));
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
