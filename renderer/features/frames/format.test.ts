import { describe, expect, it } from 'vitest';
import {
  directionArrow,
  formatBytes,
  formatExactBytes,
  formatId,
  formatTime,
  singleLine,
} from './format.js';

describe('formatBytes', () => {
  it('uses bytes below 1 KiB and binary units above', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.00 KiB');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(15 * 1024)).toBe('15.0 KiB');
    expect(formatBytes(150 * 1024)).toBe('150 KiB');
    expect(formatBytes(64 * 1024 * 1024)).toBe('64.0 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
  });

  it('never prints four integer digits with a unit above B', () => {
    expect(formatBytes(1023 * 1024)).toBe('1023 KiB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1024 KiB');
    expect(formatBytes(1024 * 1024)).toBe('1.00 MiB');
  });

  it('shows a dash for impossible sizes', () => {
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('formatExactBytes', () => {
  it('groups digits and pluralizes', () => {
    expect(formatExactBytes(1)).toBe('1 byte');
    expect(formatExactBytes(999)).toBe('999 bytes');
    expect(formatExactBytes(67_108_864)).toBe('67,108,864 bytes');
  });
});

describe('formatTime', () => {
  it('prints milliseconds since start as seconds with three decimals', () => {
    expect(formatTime(12_345)).toBe('12.345 s');
    expect(formatTime(0)).toBe('0.000 s');
    expect(formatTime(7.6)).toBe('0.008 s');
    expect(formatTime(Number.POSITIVE_INFINITY)).toBe('—');
  });
});

describe('directionArrow', () => {
  it('points right for client-to-server and left for server-to-client', () => {
    expect(directionArrow('out')).toBe('→');
    expect(directionArrow('in')).toBe('←');
  });
});

describe('singleLine', () => {
  it('turns runs of control characters (newlines, tabs, CR) into one space', () => {
    expect(singleLine('a\r\n\tb\u0000c')).toBe('a b c');
  });

  it('truncates with an ellipsis to the maximum length', () => {
    const out = singleLine('x'.repeat(1000), 50);
    expect(out).toHaveLength(50);
    expect(out.endsWith('…')).toBe(true);
    expect(singleLine('short', 50)).toBe('short');
  });

  it('bounds work on huge input: only the first 2 × max characters are examined', () => {
    expect(singleLine(`a${'\n'.repeat(500)}b`, 10)).toBe('a ');
    expect(singleLine('y'.repeat(1_000_000), 240)).toHaveLength(240);
  });
});

describe('formatId', () => {
  it('distinguishes string and number ids as on the wire', () => {
    expect(formatId(1)).toBe('1');
    expect(formatId('1')).toBe('"1"');
    expect(formatId(null)).toBe('null');
    expect(formatId(undefined)).toBe('');
  });
});
