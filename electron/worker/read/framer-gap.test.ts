/** A gap in the stream (a tap's observer fell behind): the line it falls in is dropped, the
 *  next one is whole, no oversize frame is counted, and the byte invariant still holds. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLineSplitter } from './framer.js';

function splitter() {
  const lines: string[] = [];
  const gaps: number[] = [];
  let pending = '';
  const s = createLineSplitter(1024, {
    line: (c, start, end) => lines.push(c.toString('latin1', start, end)),
    partial: (c, start) => {
      pending += c.toString('latin1', start);
    },
    lineEnd: (c, end, length) => {
      lines.push((pending + c.toString('latin1', 0, end)).slice(0, length));
      pending = '';
    },
    oversize: () => {
      throw new Error('a gap is not an oversize frame');
    },
    gap: (_offset, bytes) => {
      gaps.push(bytes);
      pending = '';
    },
  });
  return { s, lines, gaps };
}

describe('framer: a gap', () => {
  it('drops the line it falls in; the next line is whole; bytesIn = lineBytes + pending', () => {
    const { s, lines, gaps } = splitter();
    s.push(Buffer.from('{"a":1}\n{"b":'));
    s.gap?.(100);
    s.push(Buffer.from('lost"}\n{"c":3}\npart'));
    expect(lines).toEqual(['{"a":1}', '{"c":3}']);
    expect(gaps).toEqual([105]);
    expect(s.stats.oversizeFrames).toBe(0);
    expect(s.stats.bytesIn).toBe(s.stats.lineBytes + s.stats.pendingBytes);
    expect(s.end()).toBe(4);
  });

  it('whatever the cuts and gaps, lines untouched by a gap arrive whole and the bytes add up', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{0,20}$/), { maxLength: 30 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 6 }),
        (words, gapsAt) => {
          const { s, lines } = splitter();
          const untouched: string[] = [];
          words.forEach((w, i) => {
            const gapped = gapsAt.includes(i);
            if (gapped) s.gap?.(7);
            s.push(Buffer.from(`${w}\n`));
            if (!gapped) untouched.push(w);
          });
          expect(lines).toEqual(untouched);
          expect(s.stats.bytesIn).toBe(s.stats.lineBytes + s.stats.pendingBytes);
        },
      ),
    );
  });
});
