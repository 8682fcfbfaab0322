import { describe, expect, it } from 'vitest';
import {
  formatAge,
  formatBytes,
  formatClock,
  formatCount,
  formatMs,
  formatRate,
  plural,
} from './format';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.00 KiB'],
    [1536, '1.50 KiB'],
    [65_536, '64.0 KiB'],
    [8 * 1024 * 1024, '8.00 MiB'],
    [300 * 1024 * 1024, '300 MiB'],
    [1024 * 1024 - 1, '1.00 MiB'],
    [-2048, '-2.00 KiB'],
  ])('%d → %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });

  it('shows a dash for unknown values', () => {
    expect(formatBytes(null)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
    expect(formatRate(null)).toBe('—');
    expect(formatRate(2048)).toBe('2.00 KiB/s');
  });
});

describe('formatMs', () => {
  it.each([
    [0, '0 ms'],
    [4.24, '4.2 ms'],
    [850.4, '850 ms'],
    [1250, '1.25 s'],
    [42_000, '42.0 s'],
    [187_000, '3m 07s'],
    [7_500_000, '2h 05m'],
  ])('%d → %s', (n, text) => {
    expect(formatMs(n)).toBe(text);
  });

  it('shows a dash for unknown values', () => {
    expect(formatMs(null)).toBe('—');
  });
});

describe('formatCount and formatClock', () => {
  it('groups thousands the same way in every locale', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(undefined)).toBe('—');
    expect(formatClock(12_345)).toBe('12.345 s');
  });
});

describe('plural', () => {
  it('is singular for exactly one', () => {
    expect(plural(1, 'line')).toBe('1 line');
    expect(plural(0, 'line')).toBe('0 lines');
    expect(plural(2, 'line')).toBe('2 lines');
    expect(plural(1234, 'frame')).toBe('1,234 frames');
    expect(plural(1, 'process', 'processes')).toBe('1 process');
    expect(plural(3, 'process', 'processes')).toBe('3 processes');
  });
});

describe('formatAge', () => {
  it.each([
    [0, 'just now'],
    [999, 'just now'],
    [12_400, '12 s'],
    [59_999, '59 s'],
    [60_000, '1 min'],
    [3 * 3600_000 + 5 * 60_000, '3 h 05 min'],
    [50 * 3600_000, '2 d'],
    [Number.NaN, 'just now'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
