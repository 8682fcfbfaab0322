import { describe, expect, it } from 'vitest';
import {
  sameScale,
  tickBytes,
  tickCount,
  tickMs,
  tickSeconds,
  timeTicks,
  windowDomain,
  yScale,
} from './chart-format';

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

describe('yScale', () => {
  it('steps bytes in powers of two, from 0 past the max', () => {
    const mib = 1024 * 1024;
    expect(yScale(1.5 * mib, 4, 'bytes')).toEqual({
      domain: [0, 1.5 * mib],
      ticks: [0, 0.5 * mib, mib, 1.5 * mib],
    });
    const big = yScale(37 * mib, 4, 'bytes');
    expect(big.domain[1]).toBeGreaterThanOrEqual(37 * mib);
    expect(big.ticks.length).toBeLessThanOrEqual(5);
    expect(big.ticks.every((t) => Number.isInteger(Math.log2(t / mib) || 0) || t % mib === 0)).toBe(
      true,
    );
  });

  it('uses 1-2-5 steps for decimals and whole steps for integers', () => {
    expect(yScale(842, 4, 'decimal').ticks).toEqual([0, 500, 1000]);
    expect(yScale(3, 4, 'integer').ticks).toEqual([0, 1, 2, 3]);
    expect(yScale(1, 4, 'integer').ticks).toEqual([0, 1]);
    expect(yScale(31_530, 4, 'integer').ticks).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
  });

  it('gives an empty or broken series an axis of its minimum', () => {
    expect(yScale(0, 4, 'bytes', 1024).domain).toEqual([0, 1024]);
    expect(yScale(Number.NaN, 4, 'decimal', 10).domain).toEqual([0, 10]);
  });

  it('compares scales by value', () => {
    expect(sameScale(yScale(650, 4, 'decimal'), yScale(790, 4, 'decimal'))).toBe(true);
    expect(sameScale(yScale(700, 4, 'decimal'), yScale(1200, 4, 'decimal'))).toBe(false);
  });
});
