import { describe, expect, it, vi } from 'vitest';
import { StderrBatcher } from './stderr-batcher.js';

describe('StderrBatcher', () => {
  it('posts small chunks together after a short wait, in order, and counts every byte', () => {
    vi.useFakeTimers();
    try {
      const posted: string[] = [];
      const b = new StderrBatcher((d) => posted.push(Buffer.from(d).toString()));
      b.push(Buffer.from('one '));
      b.push(Buffer.from('two'));
      expect(posted).toEqual([]);
      vi.advanceTimersByTime(60);
      expect(posted).toEqual(['one two']);
      expect(b.bytes).toBe(7);
    } finally {
      vi.useRealTimers();
    }
  });

  it('posts at once past 64 KiB, and flush() posts what is held', () => {
    const posted: number[] = [];
    const b = new StderrBatcher((d) => posted.push(d.length));
    b.push(Buffer.alloc(40_000));
    b.push(Buffer.alloc(40_000));
    expect(posted).toEqual([80_000]);
    b.push(Buffer.alloc(10));
    b.flush();
    b.flush();
    expect(posted).toEqual([80_000, 10]);
    b.dispose();
  });

  it('dispose() clears its timer: nothing is posted afterwards', () => {
    vi.useFakeTimers();
    try {
      const posted: number[] = [];
      const b = new StderrBatcher((d) => posted.push(d.length));
      b.push(Buffer.alloc(5));
      b.dispose();
      vi.advanceTimersByTime(1000);
      expect(posted).toEqual([]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
