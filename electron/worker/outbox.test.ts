import { describe, expect, it } from 'vitest';
import { add, framesOf, make, own, postedFrames } from '../../test/fixtures/outbox-harness.js';
import { SPILL_MAX_FRAMES } from '../wire/protocol.js';

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

  it('cuts a batch larger than the whole credit to what fits, without waiting', () => {
    const h = make({ creditFrames: 4 }); // batches of 1 frame, but a chunk is never cut in two
    add(h, own('a'));
    const six = own('1\n2\n3\n4\n5\n6');
    for (let i = 0; i < 6; i++) h.box.addLine({ kind: 'response' }, six, i * 2, i * 2 + 1, 0, 0);
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([1, 3]); // 6 > 4: cut, not held
    h.box.credit(1, 1);
    h.box.flush();
    // The 3 left fit within the whole credit: held until those in flight are back.
    expect(h.posts.map((p) => p.frames.length)).toEqual([1, 3]);
    h.box.credit(3, 3);
    h.box.flush();
    expect(h.posts.map((p) => p.frames.length)).toEqual([1, 3, 3]);
    expect(h.posts.flatMap(framesOf).map((f) => f.toString())).toEqual([
      'a',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
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

  it('does not count a batch held for the credits in flight while a frame would fit', () => {
    const h = make({ creditFrames: 8 }); // batches of 2
    for (let i = 0; i < 6; i++) add(h, own(`c${i}`));
    const three = own('x\ny\nz');
    for (let i = 0; i < 3; i++) h.box.addLine({ kind: 'response' }, three, i * 2, i * 2 + 1, 0, 0);
    h.clock.t = 10;
    h.box.flush(); // 6 in flight, 2 credits free: the batch of 3 is held, frames could go
    h.clock.t = 50;
    h.box.flush();
    expect(h.box.currentWaitMs()).toBe(0);
    h.clock.t = 60;
    h.box.credit(2, 4);
    h.box.flush();
    expect(h.posts).toHaveLength(4);
    expect(h.box.waitMs).toBe(0);
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

  it('holds at most SPILL_MAX_FRAMES frames, however small', () => {
    const h = make({ creditFrames: 1 });
    const tiny = own('y\n'.repeat(1024));
    for (let i = 0; i < SPILL_MAX_FRAMES + 10; i++) {
      const at = (i % 1024) * 2;
      h.box.addLine({ kind: 'parse-error', problem: 'y' }, tiny, at, at + 1, i * 2, 0);
    }
    expect(h.box.spillFrames).toBe(SPILL_MAX_FRAMES);
    expect(h.box.droppedFrames).toBe(10);
    expect(h.overloads).toBe(10);
    expect(h.box.spillBytes).toBe(SPILL_MAX_FRAMES); // far under the byte bound
  });

  it('always accepts one frame into an empty spill, however large', () => {
    const h = make({ spillMaxBytes: 10 });
    add(h, Buffer.alloc(1000));
    expect(h.overloads).toBe(0);
    expect(h.box.spillFrames).toBe(1);
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

  it('says whether a flush has anything to do: frames open or queued, or a wait to end', () => {
    const h = make({ creditFrames: 4 }); // batches of one frame
    expect(h.box.holding).toBe(false);
    h.box.chunkDone(); // a read that ended no frame (a long line's)
    expect(h.box.holding).toBe(false);
    add(h, Buffer.from('a'));
    expect(h.box.holding).toBe(true);
    h.box.flush();
    expect([postedFrames(h), h.box.holding]).toEqual([1, false]);
    // Out of credits: the queued frames, then the wait, keep it true until they are posted.
    for (let i = 0; i < 4; i++) add(h, Buffer.from('b'));
    h.box.flush();
    expect([postedFrames(h), h.box.holding]).toEqual([4, true]);
    h.box.credit(4, 4);
    h.box.flush();
    expect([postedFrames(h), h.box.holding]).toEqual([5, false]);
    // A full batch sealed at the end of a read, nothing open and no wait begun: still true.
    add(h, Buffer.from('c'));
    h.box.chunkDone();
    expect(h.box.readyToPost).toBe(true);
    expect(h.box.holding).toBe(true);
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
