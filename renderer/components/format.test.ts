import { describe, expect, it } from 'vitest';
import { formatBytes, formatClock, formatCount, formatMs, formatRate } from './format';

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
