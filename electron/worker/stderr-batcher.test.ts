import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  STDERR_GAP_MS,
  STDERR_HOLD_BYTES,
  STDERR_IN_FLIGHT,
  StderrBatcher,
} from './stderr-batcher.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function batcher() {
  const posted: Uint8Array[] = [];
  const b = new StderrBatcher(
    (d) => posted.push(d),
    () => performance.now(),
  );
  return { b, posted, text: () => posted.map((d) => Buffer.from(d).toString()) };
}

describe('StderrBatcher', () => {
  it('posts small chunks together after a short wait, in order, and counts every byte', () => {
    const { b, text } = batcher();
    b.push(Buffer.from('one '));
    b.push(Buffer.from('two'));
    expect(text()).toEqual([]);
    vi.advanceTimersByTime(60);
    expect(text()).toEqual(['one two']);
    expect(b.bytes).toBe(7);
  });

  it('posts at once past 64 KiB, and flush() posts what is held', () => {
    const { b, posted } = batcher();
    b.push(Buffer.alloc(40_000));
    b.push(Buffer.alloc(40_000));
    expect(posted.map((d) => d.length)).toEqual([80_000]);
    b.credit();
    vi.advanceTimersByTime(STDERR_GAP_MS + 5); // the gap between two posts
    b.push(Buffer.alloc(10));
    b.flush();
    expect(posted.map((d) => d.length)).toEqual([80_000, 10]);
    b.dispose();
  });

  it('holds at most STDERR_IN_FLIGHT batches in flight and the newest STDERR_HOLD_BYTES here', () => {
    const { b, posted } = batcher();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    // A server logging 40 MiB at once while main takes nothing.
    for (let i = 0; i < 640; i++) {
      chunk[0] = i % 256;
      b.push(Buffer.from(chunk));
      vi.advanceTimersByTime(1);
    }
    expect(posted.length).toBe(STDERR_IN_FLIGHT);
    const held = 640 * chunk.length - posted.reduce((n, d) => n + d.length, 0);
    expect(b.droppedBytes).toBe(held - STDERR_HOLD_BYTES);
    expect(b.bytes).toBe(640 * chunk.length);
    // Main takes one: the newest megabyte goes, ending with the last chunk written.
    b.credit();
    vi.advanceTimersByTime(STDERR_GAP_MS + 5);
    const last = posted.at(-1) as Uint8Array;
    expect(last.length).toBe(STDERR_HOLD_BYTES);
    expect(last[last.length - chunk.length]).toBe(639 % 256);
  });

  it('never posts two batches within the gap, however fast the chunks come', () => {
    const { b, posted } = batcher();
    const at: number[] = [];
    for (let i = 0; i < 200; i++) {
      b.push(Buffer.alloc(64 * 1024));
      if (posted.length > at.length) at.push(performance.now());
      b.credit();
      vi.advanceTimersByTime(1);
    }
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(STDERR_GAP_MS);
  });

  it('dispose() clears its timer: nothing is posted afterwards', () => {
    const { b, posted } = batcher();
    b.push(Buffer.alloc(5));
    b.dispose();
    vi.advanceTimersByTime(1000);
    expect(posted).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
