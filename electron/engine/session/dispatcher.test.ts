import { afterEach, describe, expect, it, vi } from 'vitest';
import { InFrame } from '../transport/in-frame.js';
import type { Frame } from '../transport/transport.js';
import { Dispatcher } from './dispatcher.js';

let seq = 0;
function frame(bytes: number, t = 0): Frame {
  seq += 1;
  return InFrame.of(
    { offset: seq * 1000, kind: 'notification', t, method: `m${seq}` },
    Buffer.alloc(bytes, 0x61),
  );
}

interface Harness {
  d: Dispatcher;
  consumed: Frame[];
  credits: [number, number][];
}

function make(delayMs: number): Harness {
  const consumed: Frame[] = [];
  const credits: [number, number][] = [];
  const d = new Dispatcher({
    consume: (f) => consumed.push(f),
    credit: (frames, bytes) => credits.push([frames, bytes]),
    delayMs,
  });
  return { d, consumed, credits };
}

const sumCredits = (c: [number, number][]): [number, number] =>
  c.reduce<[number, number]>((a, [f, b]) => [a[0] + f, a[1] + b], [0, 0]);

afterEach(() => {
  vi.useRealTimers();
});

describe('Dispatcher with no consumer delay', () => {
  it('consumes a batch synchronously, in order, and credits it in one call', () => {
    const h = make(0);
    const batch = [frame(10), frame(20), frame(30)];
    h.d.enqueue(batch);
    expect(h.consumed).toEqual(batch);
    expect(h.credits).toEqual([[3, 60]]);
    expect(h.d.depth).toBe(0);
    expect(h.d.consumed).toBe(3);
    expect(h.d.oldestArrival()).toBeNull();
  });

  it('credits each batch separately with its own totals', () => {
    const h = make(0);
    h.d.enqueue([frame(5)]);
    h.d.enqueue([frame(7), frame(11)]);
    expect(h.credits).toEqual([
      [1, 5],
      [2, 18],
    ]);
  });

  it('sends no credit for an empty batch', () => {
    const h = make(0);
    h.d.enqueue([]);
    expect(h.credits).toEqual([]);
    expect(h.consumed).toEqual([]);
  });

  it('records the batch size as max depth', () => {
    const h = make(0);
    h.d.enqueue([frame(1), frame(1), frame(1), frame(1)]);
    h.d.enqueue([frame(1)]);
    expect(h.d.maxDepth).toBe(4);
  });
});

describe('Dispatcher with a slow consumer', () => {
  it('consumes one frame per delay and credits each as it is taken', () => {
    vi.useFakeTimers();
    const h = make(100);
    const batch = [frame(10, 1), frame(20, 2), frame(30, 3)];
    h.d.enqueue(batch);
    expect(h.consumed).toEqual([]);
    expect(h.d.depth).toBe(3);
    expect(h.d.oldestArrival()).toBe(1);

    vi.advanceTimersByTime(99);
    expect(h.consumed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.consumed).toEqual([batch[0]]);
    expect(h.credits).toEqual([[1, 10]]);
    expect(h.d.oldestArrival()).toBe(2);

    vi.advanceTimersByTime(100);
    expect(h.credits).toEqual([
      [1, 10],
      [1, 20],
    ]);
    vi.advanceTimersByTime(100);
    expect(h.consumed).toEqual(batch);
    expect(h.credits).toEqual([
      [1, 10],
      [1, 20],
      [1, 30],
    ]);
    expect(h.d.depth).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('tells whether a response waits in the queue, until it is taken', () => {
    vi.useFakeTimers();
    const h = make(100);
    const response = InFrame.of({ offset: 0, kind: 'response', t: 1, id: 7 }, Buffer.from('{}'));
    const request = InFrame.of({ offset: 3, kind: 'request', t: 2, id: 8 }, Buffer.from('{}'));
    h.d.enqueue([frame(10), response, request]);
    expect(h.d.holdsResponse(7)).toBe(true);
    expect(h.d.holdsResponse('7')).toBe(false); // ids compare as JSON-RPC ids: 7 is not "7"
    expect(h.d.holdsResponse(8)).toBe(false); // a request, not a response
    vi.advanceTimersByTime(200); // the first two taken
    expect(h.d.holdsResponse(7)).toBe(false);
  });

  it('tracks the deepest queue across batches', () => {
    vi.useFakeTimers();
    const h = make(50);
    h.d.enqueue([frame(1), frame(1)]);
    h.d.enqueue([frame(1), frame(1), frame(1)]);
    expect(h.d.maxDepth).toBe(5);
    vi.advanceTimersByTime(50 * 5);
    expect(h.d.depth).toBe(0);
    expect(h.d.maxDepth).toBe(5);
  });

  it('keeps a single timer however many batches arrive', () => {
    vi.useFakeTimers();
    const h = make(10);
    for (let i = 0; i < 20; i++) h.d.enqueue([frame(1)]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(10);
    expect(h.consumed).toHaveLength(1);
  });

  it('setDelay(0) drains the backlog at once with one credit', () => {
    vi.useFakeTimers();
    const h = make(1000);
    h.d.enqueue([frame(3), frame(4), frame(5)]);
    vi.advanceTimersByTime(1000);
    expect(h.credits).toEqual([[1, 3]]);
    h.d.setDelay(0);
    expect(h.consumed).toHaveLength(3);
    expect(h.credits).toEqual([
      [1, 3],
      [2, 9],
    ]);
    expect(vi.getTimerCount()).toBe(0);
    h.d.enqueue([frame(6)]);
    expect(h.consumed).toHaveLength(4);
  });

  it('a negative delay is treated as zero', () => {
    const h = make(0);
    h.d.setDelay(-5);
    h.d.enqueue([frame(1)]);
    expect(h.consumed).toHaveLength(1);
  });

  it('switching from no delay to a delay slows the next frames', () => {
    vi.useFakeTimers();
    const h = make(0);
    h.d.setDelay(20);
    h.d.enqueue([frame(1), frame(2)]);
    expect(h.consumed).toHaveLength(0);
    vi.advanceTimersByTime(20);
    expect(h.consumed).toHaveLength(1);
  });

  it('flush() consumes everything queued and credits the totals', () => {
    vi.useFakeTimers();
    const h = make(500);
    h.d.enqueue([frame(8), frame(9)]);
    h.d.flush();
    expect(h.consumed).toHaveLength(2);
    expect(h.credits).toEqual([[2, 17]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stop() flushes the backlog, then ignores new frames', () => {
    vi.useFakeTimers();
    const h = make(500);
    h.d.enqueue([frame(8), frame(9), frame(10)]);
    vi.advanceTimersByTime(500);
    h.d.stop();
    expect(h.consumed).toHaveLength(3);
    expect(sumCredits(h.credits)).toEqual([3, 27]);
    h.d.enqueue([frame(1)]);
    vi.advanceTimersByTime(5000);
    expect(h.consumed).toHaveLength(3);
    expect(h.d.depth).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('credits exactly the bytes it consumed over a long mixed run', () => {
    vi.useFakeTimers();
    const h = make(3);
    let bytes = 0;
    let n = 0;
    for (let i = 0; i < 50; i++) {
      const batch = Array.from({ length: (i % 4) + 1 }, (_, k) => frame(i + k + 1));
      for (const f of batch) bytes += f.bytes;
      n += batch.length;
      h.d.enqueue(batch);
      vi.advanceTimersByTime(i % 7);
      if (i === 25) h.d.setDelay(0);
      if (i === 30) h.d.setDelay(2);
    }
    h.d.stop();
    expect(h.consumed).toHaveLength(n);
    expect(sumCredits(h.credits)).toEqual([n, bytes]);
  });
});
