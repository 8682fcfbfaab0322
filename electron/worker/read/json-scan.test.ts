import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { b, cutsArb, parses, texts } from '../../../test/fixtures/json-lines.js';
import { JsonScanner } from './json-scan.js';

// The scanner accepts exactly what JSON.parse accepts, whole or fed in pieces cut anywhere.

function scanValid(buf: Buffer, cuts: number[] = []): boolean {
  const sc = new JsonScanner();
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < buf.length)].sort((x, y) => x - y)) {
    sc.feed(buf, at, cut, true);
    at = cut;
  }
  sc.feed(buf, at, buf.length);
  return sc.finish();
}

describe('JsonScanner agrees with JSON.parse', () => {
  it('on JSON-RPC messages, arbitrary JSON and both after random edits, cut anywhere', () => {
    fc.assert(
      fc.property(texts, cutsArb, (t, cuts) => {
        const buf = b(t);
        const want = parses(buf) || !isUtf8(buf);
        if (!isUtf8(buf)) return; // the scanner leaves UTF-8 to Utf8Stream
        expect(scanValid(buf), t).toBe(want);
        expect(scanValid(buf, cuts), `${t} cut at ${cuts}`).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });

  it('on the cases that break hand-written JSON parsers', () => {
    const cases = [
      '0',
      '-0',
      '01',
      '-',
      '1.',
      '.5',
      '1e',
      '1e+',
      '1E-2',
      '2.5e10',
      '-01',
      '00',
      '1.0e',
      'tru',
      'true',
      'truex',
      'nul',
      'null ',
      ' null',
      'falsey',
      '"\\u12"',
      '"\\u12g4"',
      '"\\uABCD"',
      '"\\x"',
      '"\\/"',
      '"a\tb"',
      '"a\u001fb"',
      '"a\u007fb"',
      '[1,]',
      '[,1]',
      '{"a":1,}',
      '{,}',
      '{"a"}',
      '{"a":}',
      '{"a" 1}',
      '{1:2}',
      '[]',
      '{}',
      '[[]]',
      '[{}]',
      '{"a":[]}',
      '"',
      '""',
      '"\\"',
      '"\\\\"',
      '[1 2]',
      '{"a":1 "b":2}',
      '1 2',
      '{} {}',
      '\ufeff{}',
      '\r{}\r',
      '\t[ ]\t',
      ']',
      '}',
      '[}',
      '{]',
      ' ',
      '',
      '-a',
      '1-',
      '1.5.',
      '[-]',
      '{"\\u0000":1}',
      '"\u2028"',
    ];
    for (const t of cases) {
      const buf = b(t);
      expect(scanValid(buf), JSON.stringify(t)).toBe(parses(buf));
      for (let cut = 1; cut < buf.length; cut++) expect(scanValid(buf, [cut])).toBe(parses(buf));
    }
  });

  it('a line that begins {"jsonrpc":"2.0","id": (taken in one step) ends the same as any other', () => {
    const prefix = '{"jsonrpc":"2.0","id":';
    const rests = [
      '',
      '1}',
      '1,"result":{}}',
      '"a","result":null}',
      '-0.5e3,"method":"x"}',
      'null,"error":{"code":1}}',
      '{"x":[1,2]}}',
      '}',
      ',"result":1}',
      '1',
      '1,',
      '1}}',
      '1} ',
      '1}x',
      '01}',
      ' 1 , "result" : [ ] }',
      '"\u0041"}',
      'tru}',
    ];
    for (const rest of rests) {
      const buf = b(prefix + rest);
      expect(scanValid(buf), prefix + rest).toBe(parses(buf));
      for (let cut = 1; cut < buf.length; cut++) expect(scanValid(buf, [cut])).toBe(parses(buf));
      // Not at a line's start, the same bytes go byte by byte: same answer.
      const inner = b(`[${prefix}${rest}]`);
      expect(scanValid(inner)).toBe(parses(inner));
      const spaced = b(` ${prefix}${rest}`);
      expect(scanValid(spaced)).toBe(parses(spaced));
    }
  });

  it('handles 100,000 levels of nesting and strings longer than the skipper window', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(scanValid(b(deep))).toBe(true);
    expect(scanValid(b(`${deep}]`))).toBe(false);
    const long = `{"a":"${'x'.repeat(3 * 1024 * 1024)}\\n${'y'.repeat(1500)}"}`;
    expect(scanValid(b(long))).toBe(true);
    const ctl = Buffer.from(long);
    ctl[2 * 1024 * 1024 + 17] = 0x01;
    expect(scanValid(ctl)).toBe(false);
    expect(scanValid(ctl, [65_536, 1024 * 1024, 2 * 1024 * 1024 + 17])).toBe(false);
  });

  it('reads pieces that lie in shared memory (a slab) as it reads its own, at any offset', () => {
    const text = b(
      `{"jsonrpc":"2.0","id":"a\\u00e9","result":{"t":"${'x'.repeat(3 * 1024 * 1024)}"}}`,
    );
    // The same bytes in a SharedArrayBuffer, 3 bytes in, fed in pieces of odd sizes.
    const slab = new Uint8Array(new SharedArrayBuffer(text.length + 8));
    slab.set(text, 3);
    const view = slab.subarray(3, 3 + text.length);
    for (const bad of [-1, 1_500_000]) {
      const own = Buffer.from(text);
      if (bad >= 0) own[bad] = 0x01;
      if (bad >= 0) view[bad] = 0x01;
      const mine = new JsonScanner();
      const shared = new JsonScanner();
      for (let at = 0; at < text.length; at += 777_777) {
        const end = Math.min(text.length, at + 777_777);
        mine.feed(own, at, end, true);
        shared.feed(view, at, end, true);
      }
      const ok = shared.finish();
      expect([ok, shared.error, shared.top]).toEqual([mine.finish(), mine.error, mine.top]);
      expect(ok).toBe(bad < 0);
    }
  });

  it('grows its container stack past one page (600,000 levels) and stays exact', () => {
    const deep = b(`${'['.repeat(600_000)}${']'.repeat(600_000)}`);
    expect(scanValid(deep)).toBe(true);
    expect(scanValid(deep, [1000, 599_999, 600_001])).toBe(true);
    const wrong = b(`${'['.repeat(600_000)}}${']'.repeat(599_999)}`);
    expect(scanValid(wrong)).toBe(false);
  });
});
