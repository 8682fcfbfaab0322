import { describe, expect, it } from 'vitest';
import { msToNextSlot } from './useSampled';

describe('msToNextSlot', () => {
  it('waits for the next boundary of the period', () => {
    expect(msToNextSlot(1000, 250, 0)).toBe(250);
    expect(msToNextSlot(1010, 250, 0)).toBe(240);
    expect(msToNextSlot(1249, 250, 0)).toBe(1);
  });

  it('shifts boundaries by the phase (a fraction of the period)', () => {
    // Boundaries at 100, 350, 600, … for phase 0.4 of 250 ms.
    expect(msToNextSlot(1000, 250, 0.4)).toBe(100);
    expect(msToNextSlot(1100, 250, 0.4)).toBe(250);
    expect(msToNextSlot(0, 250, 0.4)).toBe(100);
  });

  it('keeps charts with different phases in different slots', () => {
    const fire = (phase: number) => 1000 + msToNextSlot(1000, 300, phase);
    const times = [0, 1 / 3, 2 / 3].map(fire);
    expect(new Set(times).size).toBe(3);
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(300);
  });
});
