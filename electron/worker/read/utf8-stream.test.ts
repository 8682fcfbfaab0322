import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { b, cutsArb } from '../../../test/fixtures/json-lines.js';
import { Utf8Stream } from './utf8-stream.js';

describe('Utf8Stream', () => {
  it('equals isUtf8 of the whole, cut anywhere', () => {
    const pieces = fc.oneof(
      fc.string({ unit: 'binary' }).map((s) => b(s)),
      fc.uint8Array({ maxLength: 40 }).map((u) => Buffer.from(u)),
      fc
        .tuple(fc.string({ unit: 'binary' }), fc.nat(), fc.integer({ min: 0x80, max: 0xff }))
        .map(([s, p, x]) => {
          const buf = b(s);
          if (buf.length > 0) buf[p % buf.length] = x;
          return buf;
        }),
    );
    fc.assert(
      fc.property(pieces, cutsArb, (buf, cuts) => {
        // Pieces that are valid on their own may take the worker's shortcut (pushValid).
        for (const shortcut of [false, true]) {
          const u = new Utf8Stream();
          const feed = (piece: Buffer) =>
            shortcut && piece.length > 0 && isUtf8(piece) ? u.pushValid() : u.push(piece);
          let at = 0;
          for (const cut of [...cuts.map((c) => c % (buf.length + 1))].sort((x, y) => x - y)) {
            feed(buf.subarray(at, Math.max(at, cut)));
            at = Math.max(at, cut);
          }
          feed(buf.subarray(at));
          expect(u.end()).toBe(isUtf8(buf));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
