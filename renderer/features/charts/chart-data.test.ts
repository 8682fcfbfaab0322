import { describe, expect, it } from 'vitest';
import type { SeriesPoint } from '../../../shared/session-info';
import { decimate, frameSizeDots } from './chart-data';

function point(t: number, stdoutRate: number): SeriesPoint {
  return {
    t,
    stdoutRate,
    stderrRate: 0,
    dispatcherDepth: t % 3,
    dispatcherWaitMs: t,
    largestFrameBytes: 0,
  };
}

describe('decimate', () => {
  it('returns short series as they are', () => {
    const points = [point(1, 1), point(2, 2)];
    expect(decimate(points, 10)).toBe(points);
  });

  it('bounds the count and keeps the peaks', () => {
    const points = Array.from({ length: 600 }, (_, i) => point(i, i === 301 ? 1e6 : 1));
    const out = decimate(points, 150);
    expect(out.length).toBeLessThanOrEqual(150);
    expect(Math.max(...out.map((p) => p.stdoutRate))).toBe(1e6);
    expect(out.at(-1)?.t).toBe(599);
  });
});

describe('frameSizeDots', () => {
  it('keeps the largest frame per bucket and direction, inside the domain', () => {
    const dots = frameSizeDots(
      [
        { t: 1, bytes: 10, dir: 'in' },
        { t: 2, bytes: 8 * 1024 * 1024, dir: 'in' },
        { t: 3, bytes: 0, dir: 'out' },
        { t: 60, bytes: 5, dir: 'in' },
        { t: 500, bytes: 99, dir: 'in' },
      ],
      [0, 100],
      10,
    );
    expect(dots.incoming).toEqual([
      { t: 2, bytes: 8 * 1024 * 1024 },
      { t: 60, bytes: 5 },
    ]);
    expect(dots.outgoing).toEqual([{ t: 3, bytes: 1 }]);
  });

  it('never draws more than one dot per bucket and direction', () => {
    const sizes = Array.from({ length: 5000 }, (_, i) => ({ t: i, bytes: i, dir: 'in' as const }));
    expect(frameSizeDots(sizes, [0, 5000], 60).incoming.length).toBeLessThanOrEqual(60);
  });
});
