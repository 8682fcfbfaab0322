import { describe, expect, it } from 'vitest';
import { BOTTOM_SLACK_PX, computeWindow, isAtBottom } from './virtual-window.js';

const base = { scrollTop: 0, height: 200, rowHeight: 20, count: 1000, overscan: 0 };

describe('computeWindow', () => {
  it('renders exactly the visible rows at the top without overscan', () => {
    expect(computeWindow(base)).toEqual({ start: 0, end: 10, offsetTop: 0, totalHeight: 20_000 });
  });

  it('includes a partly visible row at both edges', () => {
    const w = computeWindow({ ...base, scrollTop: 30 });
    expect(w.start).toBe(1); // row 1 spans 20..40, partly visible
    expect(w.end).toBe(12); // 30 + 200 = 230 → row 11 partly visible
    expect(w.offsetTop).toBe(20);
  });

  it('adds overscan on both sides, clamped to the list', () => {
    expect(computeWindow({ ...base, scrollTop: 1000, overscan: 5 })).toMatchObject({
      start: 45,
      end: 65,
      offsetTop: 900,
    });
    expect(computeWindow({ ...base, overscan: 5 })).toMatchObject({ start: 0, end: 15 });
    const bottom = computeWindow({ ...base, scrollTop: 20_000 - 200, overscan: 5 });
    expect(bottom).toMatchObject({ start: 985, end: 1000 });
  });

  it('keeps the DOM small for 100,000 items anywhere in the list', () => {
    for (const scrollTop of [0, 123_457, 1_000_000, 2_000_000 - 600]) {
      const w = computeWindow({
        scrollTop,
        height: 600,
        rowHeight: 20,
        count: 100_000,
        overscan: 8,
      });
      expect(w.end - w.start).toBeLessThan(100);
      expect(w.end - w.start).toBeGreaterThanOrEqual(30);
      expect(w.totalHeight).toBe(2_000_000);
      expect(w.offsetTop).toBe(w.start * 20);
    }
  });

  it('clamps a stale scrollTop past the end (the list shrank) to the last page', () => {
    const w = computeWindow({ ...base, count: 20, scrollTop: 50_000 });
    expect(w).toMatchObject({ start: 10, end: 20, totalHeight: 400 });
  });

  it('renders everything when the list is shorter than the viewport', () => {
    expect(computeWindow({ ...base, count: 3, scrollTop: 500 })).toEqual({
      start: 0,
      end: 3,
      offsetTop: 0,
      totalHeight: 60,
    });
  });

  it('handles empty lists, an unmeasured viewport and bad numbers', () => {
    expect(computeWindow({ ...base, count: 0 })).toEqual({
      start: 0,
      end: 0,
      offsetTop: 0,
      totalHeight: 0,
    });
    // Height 0 (before ResizeObserver reports): at least one row plus overscan.
    expect(computeWindow({ ...base, height: 0, overscan: 2 })).toMatchObject({ start: 0, end: 3 });
    const w = computeWindow({
      scrollTop: Number.NaN,
      height: -5,
      rowHeight: 0,
      count: 10,
      overscan: -1,
    });
    expect(w.start).toBe(0);
    expect(w.end).toBeGreaterThanOrEqual(1);
    expect(w.end).toBeLessThanOrEqual(10);
  });

  it('always returns a valid range (property over a grid of inputs)', () => {
    for (const count of [0, 1, 7, 100, 5000]) {
      for (const rowHeight of [1, 18, 22.5]) {
        for (const height of [0, 10, 333]) {
          for (const scrollTop of [0, 5, 99, 1e4, 1e9]) {
            const w = computeWindow({ scrollTop, height, rowHeight, count, overscan: 3 });
            expect(w.start).toBeGreaterThanOrEqual(0);
            expect(w.end).toBeLessThanOrEqual(count);
            expect(w.start).toBeLessThanOrEqual(w.end);
            if (count > 0) expect(w.end).toBeGreaterThan(w.start);
            expect(w.totalHeight).toBeCloseTo(count * rowHeight);
          }
        }
      }
    }
  });
});

describe('isAtBottom', () => {
  it('is true at the bottom and within the slack, false above it', () => {
    expect(isAtBottom(800, 200, 1000)).toBe(true);
    expect(isAtBottom(800 - BOTTOM_SLACK_PX, 200, 1000)).toBe(true);
    expect(isAtBottom(800 - BOTTOM_SLACK_PX - 1, 200, 1000)).toBe(false);
    expect(isAtBottom(0, 200, 100)).toBe(true); // content shorter than the viewport
  });
});
