import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StderrRing } from './stderr-ring.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('StderrRing', () => {
  it('keeps chunks with their times and returns the decoded text', () => {
    const ring = new StderrRing();
    expect(ring.push(b('hello\n'), 1)).toBe('hello\n');
    ring.push(b('world\n'), 2);
    expect(ring.all()).toEqual([
      { t: 1, text: 'hello\n' },
      { t: 2, text: 'world\n' },
    ]);
    expect(ring.text()).toBe('hello\nworld\n');
    expect(ring.droppedBytes).toBe(0);
  });

  it('is bounded in bytes and counts what it dropped, oldest first', () => {
    const ring = new StderrRing(10);
    for (let i = 0; i < 5; i++) ring.push(b(`${i}${i}${i}${i}`), i);
    expect(Buffer.byteLength(ring.text())).toBeLessThanOrEqual(10);
    expect(ring.text()).toBe('33334444');
    expect(ring.droppedBytes).toBe(12);
  });

  it('keeps the tail of a single chunk larger than the ring', () => {
    const ring = new StderrRing(8);
    const text = ring.push(b('0123456789abcdef'), 0);
    expect(text).toBe('89abcdef');
    expect(ring.text()).toBe('89abcdef');
    expect(ring.droppedBytes).toBe(8);
  });

  it('tolerates invalid UTF-8 (\\xff\\xfe) with replacement characters', () => {
    const ring = new StderrRing();
    const text = ring.push(Buffer.from([0x61, 0xff, 0xfe, 0x62]), 0);
    expect(text).toBe('a\uFFFD\uFFFDb');
  });

  it('stays bounded under a flood of invalid UTF-8 and counts raw bytes dropped', () => {
    // Each 0xff byte decodes to U+FFFD (3 bytes in UTF-8): the ring must count what it
    // received, not the re-encoded text, or its bound drifts and memory grows without limit.
    const ring = new StderrRing(100);
    const chunk = Buffer.alloc(10, 0xff);
    const pushes = 1000;
    for (let i = 0; i < pushes; i++) ring.push(chunk, i);
    const heldChars = ring.text().length; // one U+FFFD per invalid byte
    expect(heldChars).toBeLessThanOrEqual(100);
    expect(ring.droppedBytes + heldChars).toBe(pushes * chunk.length);
  });

  it('decodes a UTF-8 character split across pushes', () => {
    const euro = b('€'); // e2 82 ac
    const ring = new StderrRing();
    const first = ring.push(Buffer.concat([b('price '), euro.subarray(0, 1)]), 1);
    const second = ring.push(Buffer.concat([euro.subarray(1), b('5\n')]), 2);
    expect(first).toBe('price ');
    expect(second).toBe('€5\n');
    expect(ring.text()).toBe('price €5\n');
    expect(ring.text()).not.toContain('\uFFFD');
  });

  it('decodes any text cut at any byte boundaries (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const bytes = b(text);
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort(
            (x, y) => x - y,
          );
          const ring = new StderrRing();
          let at = 0;
          for (const p of [...points, bytes.length]) {
            ring.push(bytes.subarray(at, p), 0);
            at = p;
          }
          expect(ring.text()).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps held + dropped equal to bytes received (valid text, property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary-ascii', maxLength: 40 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        (chunks, max) => {
          const ring = new StderrRing(max);
          let total = 0;
          for (const c of chunks) {
            ring.push(b(c), 0);
            total += c.length;
          }
          const held = Buffer.byteLength(ring.text());
          expect(held + ring.droppedBytes).toBe(total);
          expect(held).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns the last n lines without a trailing empty line', () => {
    const ring = new StderrRing();
    ring.push(b('one\ntwo\nthr'), 0);
    ring.push(b('ee\nfour\n'), 1);
    expect(ring.tailLines(2)).toEqual(['three', 'four']);
    expect(ring.tailLines(10)).toEqual(['one', 'two', 'three', 'four']);
    const partial = new StderrRing();
    partial.push(b('a\nb'), 0);
    expect(partial.tailLines(1)).toEqual(['b']);
    expect(new StderrRing().tailLines(3)).toEqual([]);
  });
});
