import { describe, expect, it } from 'vitest';
import { charsForBytes, neighbours, parseOffset, WINDOW_BYTES } from './frame-window';

describe('frame window', () => {
  it('reads offsets as people type them', () => {
    expect(parseOffset('1,048,576')).toBe(1_048_576);
    expect(parseOffset(' 0x100 ')).toBe(256);
    expect(parseOffset('12 345')).toBe(12_345);
    expect(parseOffset('-1')).toBeNull();
    expect(parseOffset('abc')).toBeNull();
    expect(parseOffset('')).toBeNull();
  });

  it('counts the characters that cover a match of n UTF-8 bytes', () => {
    expect(charsForBytes('héllo world', 6)).toBe(5);
    expect(charsForBytes('😀x', 4)).toBe(2);
    expect(charsForBytes('ab', 10)).toBe(2);
  });

  it('has a previous and a next page, none past either end', () => {
    const w = {
      offset: 0,
      length: WINDOW_BYTES,
      totalBytes: 3 * WINDOW_BYTES,
      text: '',
      before: '',
      matchChars: 0,
    };
    expect(neighbours(w)).toEqual({ prev: null, next: WINDOW_BYTES });
    expect(neighbours({ ...w, offset: 2 * WINDOW_BYTES })).toEqual({
      prev: WINDOW_BYTES,
      next: null,
    });
  });
});
