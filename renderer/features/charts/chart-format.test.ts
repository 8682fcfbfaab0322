import { describe, expect, it } from 'vitest';
import { tickBytes, tickCount, tickMs, tickSeconds, timeTicks, windowDomain } from './chart-format';

describe('chart axis labels', () => {
  it('keeps byte labels short', () => {
    expect(tickBytes(0)).toBe('0');
    expect(tickBytes(600)).toBe('600');
    expect(tickBytes(34 * 1024)).toBe('34K');
    expect(tickBytes(1.5 * 1024 * 1024)).toBe('1.5M');
    expect(tickBytes(8 * 1024 * 1024)).toBe('8M');
    expect(tickBytes(154 * 1024 * 1024)).toBe('154M');
    expect(tickBytes(2 * 1024 ** 3)).toBe('2G');
  });

  it('keeps counts, durations and times short', () => {
    expect(tickCount(12_345)).toBe('12k');
    expect(tickCount(2_500_000)).toBe('2.5M');
    expect(tickMs(250)).toBe('250ms');
    expect(tickMs(1500)).toBe('1.5s');
    expect(tickSeconds(5000)).toBe('5s');
    expect(tickSeconds(185_000)).toBe('3m05');
  });
});

describe('windowDomain and timeTicks', () => {
  it('is at least 10 s wide and follows the window', () => {
    expect(windowDomain(undefined, undefined)).toEqual([0, 10_000]);
    expect(windowDomain(0, 3000)).toEqual([0, 10_000]);
    expect(windowDomain(20_000, 50_000)).toEqual([20_000, 50_000]);
  });

  it('puts round ticks inside the domain', () => {
    expect(timeTicks([0, 10_000])).toEqual([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(timeTicks([21_300, 51_300])).toEqual([25_000, 30_000, 35_000, 40_000, 45_000, 50_000]);
    expect(timeTicks([0, 3_600_000]).length).toBeLessThanOrEqual(7);
  });
});
