import { describe, expect, it } from 'vitest';
import {
  clampT,
  formatTraceTime,
  percentAt,
  playStep,
  SeekCoalescer,
  sliderStep,
  sliderToT,
} from './scrubber';

describe('scrubber math', () => {
  it('clamps, steps and places markers on [0, duration]', () => {
    expect(clampT(-5, 100)).toBe(0);
    expect(clampT(150, 100)).toBe(100);
    expect(clampT(Number.NaN, 100)).toBe(0);
    expect(sliderStep(660)).toBe(1);
    expect(sliderStep(3_600_000)).toBe(360);
    expect(percentAt(25, 100)).toBe(25);
    expect(percentAt(500, 100)).toBe(100);
    expect(percentAt(0, 0)).toBe(100);
  });

  it('maps the slider’s last step to the end itself', () => {
    expect(sliderToT(660, 660)).toBe(660);
    expect(sliderToT(3_599_800, 3_600_001)).toBe(3_600_001);
    expect(sliderToT(0, 660)).toBe(0);
    expect(sliderToT(330, 660)).toBe(330);
  });

  it('plays at 1× and 10× and stops at the end', () => {
    expect(playStep(0, 100, '1×', 1000)).toEqual({ t: 100, ended: false });
    expect(playStep(0, 100, '10×', 1000)).toEqual({ t: 1000, ended: true });
    expect(playStep(950, 100, '1×', 1000)).toEqual({ t: 1000, ended: true });
  });

  it('formats times', () => {
    expect(formatTraceTime(850)).toBe('850 ms');
    expect(formatTraceTime(1234)).toBe('1.23 s');
    expect(formatTraceTime(12_345)).toBe('12.3 s');
    expect(formatTraceTime(125_000)).toBe('2 min 05 s');
  });
});

describe('SeekCoalescer', () => {
  it('keeps one seek in flight and runs only the latest position after it', async () => {
    const asked: number[] = [];
    const release: Array<() => void> = [];
    const c = new SeekCoalescer(
      (t) =>
        new Promise<void>((resolve) => {
          asked.push(t);
          release.push(resolve);
        }),
    );
    c.request(1);
    c.request(2);
    c.request(3);
    expect(asked).toEqual([1]);
    release.shift()?.();
    await Promise.resolve();
    await Promise.resolve();
    expect(asked).toEqual([1, 3]);
    const settled = c.settled();
    release.shift()?.();
    await settled;
    expect(asked).toEqual([1, 3]);
  });

  it('goes on after a failed seek', async () => {
    const asked: number[] = [];
    const c = new SeekCoalescer(async (t) => {
      asked.push(t);
      if (t === 1) throw new Error('host gone');
    });
    c.request(1);
    c.request(2);
    await c.settled();
    expect(asked).toEqual([1, 2]);
  });
});
