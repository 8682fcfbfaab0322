import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StderrPace } from './stderr-pace.js';

describe('StderrPace', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function flowing(): PassThrough {
    const s = new PassThrough();
    s.on('data', () => {});
    return s;
  }

  it('reads as fast as it comes until a rate is set', () => {
    const s = flowing();
    const pace = new StderrPace(() => s);
    pace.took(65536);
    expect(s.isPaused()).toBe(false);
  });

  it('pauses after each read for as long as its bytes take at the rate, then resumes', () => {
    const s = flowing();
    const pace = new StderrPace(() => s);
    pace.set(64 * 1024);
    pace.took(32 * 1024);
    expect(s.isPaused()).toBe(true);
    vi.advanceTimersByTime(499);
    expect(s.isPaused()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(s.isPaused()).toBe(false);
  });

  it('resumes at once when the rate is lifted (the stop drains), and dispose clears its timer', () => {
    const s = flowing();
    const pace = new StderrPace(() => s);
    pace.set(1024);
    pace.took(65536);
    expect(s.isPaused()).toBe(true);
    pace.set(null);
    expect(s.isPaused()).toBe(false);
    pace.set(1024);
    pace.took(1024);
    pace.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does nothing without a stream (tap mode) or for an empty read', () => {
    const pace = new StderrPace(() => undefined);
    pace.set(1024);
    pace.took(10);
    expect(vi.getTimerCount()).toBe(0);
    const s = flowing();
    const p2 = new StderrPace(() => s);
    p2.set(1024);
    p2.took(0);
    expect(s.isPaused()).toBe(false);
  });
});
