import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Classified, classifyFrameByParse } from './classify.js';
import { JsonScanner } from './json-scan.js';
import { LineClassifier } from './line-classifier.js';
import { Utf8Stream } from './utf8-stream.js';

// The line classifier must agree with JSON.parse + classifyValue (classifyFrameByParse) on every
// input: these properties compare the two on JSON-RPC-shaped messages, arbitrary JSON, and both
// after random edits that break them in the ways a hostile server would.

const b = (s: string) => Buffer.from(s, 'utf8');

function parses(buf: Buffer): boolean {
  if (!isUtf8(buf)) return false;
  try {
    JSON.parse(buf.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

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

function streamed(buf: Buffer, cuts: number[]): Classified {
  const lc = new LineClassifier();
  lc.begin();
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < buf.length)].sort((x, y) => x - y)) {
    lc.piece(buf.subarray(at, cut));
    at = cut;
  }
  lc.piece(buf.subarray(at));
  return lc.end(buf.length, () => buf);
}

const tricky = fc.constantFrom(
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '0',
  '-',
  '.',
  'e',
  '+',
  't',
  'n',
  'u',
  ' ',
  '\t',
  '\r',
  '\u0000',
  '\u001f',
  'é',
  '😀',
  '\u2028',
  'x',
  '\\u00',
  '\\"',
  '1e400',
);

/** A JSON text with a random edit: insert, delete, replace or truncate. */
const edited = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.nat(), tricky, fc.integer({ min: 0, max: 3 })).map(([t, pos, ins, op]) => {
    const p = t.length === 0 ? 0 : pos % (t.length + 1);
    if (op === 0) return t.slice(0, p) + ins + t.slice(p);
    if (op === 1) return t.slice(0, p) + t.slice(p + 1);
    if (op === 2) return t.slice(0, p) + ins + t.slice(p + ins.length);
    return t.slice(0, p);
  });

const id = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.string(),
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(1e300, -0, 2 ** 64),
);
const rpc = fc
  .record(
    {
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2),
      id,
      method: fc.oneof(
        fc.constantFrom('ping', 'notifications/progress', 'tools/call'),
        fc.string(),
        fc.integer(),
      ),
      params: fc.oneof(
        fc.record(
          { progressToken: id, progress: fc.double(), total: fc.integer() },
          { requiredKeys: [] },
        ),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      result: fc.jsonValue({ maxDepth: 3 }),
      error: fc.oneof(
        fc.record({
          code: fc.integer(),
          message: fc.string(),
          data: fc.jsonValue({ maxDepth: 2 }),
        }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    },
    { requiredKeys: [] },
  )
  .map((m) => JSON.stringify(m));
/** Escaped spellings JSON.parse reads as the same names/values ("\u0069d" is "id"). */
const escapedRpc = rpc.map((t) =>
  t
    .replace('"id"', '"\\u0069d"')
    .replace('"2.0"', '"2\\u002e0"')
    .replace('"method"', '"m\\u0065thod"'),
);
const anyJson = fc.oneof(
  fc.json({ maxDepth: 4 }),
  // Whitespace everywhere JSON allows it (and \r, which a stripped CRLF line may still hold).
  fc
    .tuple(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(' ', '\t', '\r\t', 2))
    .map(([v, indent]) => JSON.stringify(v, null, indent).replaceAll('\n', ' ')),
);
const texts = fc.oneof(rpc, escapedRpc, anyJson, edited(rpc), edited(anyJson), edited(escapedRpc));
const cutsArb = fc.array(fc.nat({ max: 400 }), { maxLength: 6 });

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
});

describe('LineClassifier agrees with classifyFrameByParse', () => {
  it('whole lines: exactly, parse-error messages included', () => {
    const lc = new LineClassifier();
    fc.assert(
      fc.property(texts, (t) => {
        const buf = b(t);
        expect(lc.classify(buf), t).toEqual(classifyFrameByParse(buf));
      }),
      { numRuns: 3000 },
    );
  });

  it('whole lines of a chunk split and classified in one call (the worker way): the same', () => {
    const lc = new LineClassifier();
    const lineArb = fc.oneof(
      texts,
      fc.constant(''),
      fc
        .uint8Array({ maxLength: 30 })
        .map((u) => Buffer.from(u.filter((x) => x !== 0x0a)).toString('latin1')),
    );
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 300 }),
        (lines, rawBytes, crlf, limit) => {
          // Lines joined with \n (or \r\n) into one chunk; rawBytes: some as arbitrary bytes.
          const parts = lines.map((l, i) =>
            rawBytes && i % 3 === 0 ? Buffer.from(l, 'latin1') : b(l),
          );
          const eol = Buffer.from(crlf ? '\r\n' : '\n');
          const chunk = Buffer.concat(parts.flatMap((p) => [p, eol]));
          const got: unknown[] = [];
          const done = lc.classifyRegion(
            chunk,
            0,
            chunk.length,
            limit,
            isUtf8(chunk),
            (s, e, c, id, over) =>
              got.push(over >= 0 ? { over, s, e } : { s, e, c: c ?? { kind: 'response', id } }),
          );
          expect(done).toBe(true);
          let at = 0;
          const want = parts.map((p) => {
            const s = at;
            const raw = Buffer.concat([p, eol]).subarray(0, p.length + eol.length - 1); // no \n
            const line = raw.at(-1) === 0x0d ? raw.subarray(0, -1) : raw; // one \r left out
            at += raw.length + 1;
            // A line over the limit is not classified; its length is given with a \r, no \n.
            return line.length > limit
              ? { over: raw.length, s, e: s + line.length }
              : { s, e: s + line.length, c: classifyFrameByParse(line) };
          });
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a chunk with more lines than one call takes (65,536 empty lines) is done in several', () => {
    const lc = new LineClassifier();
    const chunk = Buffer.from('\n'.repeat(65_536));
    let n = 0;
    lc.classifyRegion(chunk, 0, chunk.length, 100, true, (s, e, c) => {
      expect([s, e]).toEqual([n, n]);
      expect(c).toEqual({ kind: 'empty', problem: 'empty line' });
      n += 1;
    });
    expect(n).toBe(65_536);
  });

  it('lines in pieces: exactly the same, cut anywhere (even inside a character)', () => {
    fc.assert(
      fc.property(texts, cutsArb, (t, cuts) => {
        const buf = b(t);
        expect(streamed(buf, cuts), `${t} cut at ${cuts}`).toEqual(classifyFrameByParse(buf));
      }),
      { numRuns: 2000 },
    );
  });

  it('a member longer than the scanner keeps (1 MiB) is read by JSON.parse: same answer', () => {
    const MiB = 1024 * 1024;
    const lines = [
      { jsonrpc: '2.0', id: 'i'.repeat(1.5 * MiB), result: 1 },
      { jsonrpc: '2.0', method: 'm'.repeat(2 * MiB), id: 1 },
      { jsonrpc: '2.0', id: 1, result: 1, method: ['x'.repeat(1.5 * MiB)] },
      { jsonrpc: '2.0', id: 1, error: { code: 7, message: 'm', data: 'd'.repeat(1.5 * MiB) } },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 3, pad: 'p'.repeat(1.5 * MiB) },
      },
    ].map((m) => b(JSON.stringify(m)));
    const lc = new LineClassifier();
    for (const line of lines) {
      const want = classifyFrameByParse(line);
      expect(want.kind).not.toBe('invalid');
      expect(lc.classify(line)).toEqual(want);
      const cuts = [65_536, 3 * 65_536, MiB, MiB + 7];
      expect(streamed(line, cuts)).toEqual(want);
      const got: Classified[] = [];
      const chunk = Buffer.concat([line, Buffer.from('\n')]);
      const done = lc.classifyRegion(chunk, 0, chunk.length, 1 << 30, true, (_s, _e, c, id) =>
        got.push(c ?? { kind: 'response', id }),
      );
      // Over the module's 2 MiB input the worker classifies line by line (classifySpan above).
      expect(got).toEqual(done ? [want] : []);
      expect(done).toBe(chunk.length <= 2 * MiB);
    }
  });

  it('whole lines never disturb a line arriving in pieces on the same classifier', () => {
    const lc = new LineClassifier();
    const line = b('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}');
    const big = b(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'r'.repeat(3 << 20) })}\n`);
    lc.begin();
    lc.piece(line.subarray(0, 30));
    // A chunk over the batch's 2 MiB is not taken in one call: its lines go one by one.
    expect(lc.classifyRegion(big, 0, big.length, 1 << 30, true, () => {})).toBe(false);
    expect(lc.classifySpan(big, 0, big.length - 1, true)).toEqual({ kind: 'response', id: 1 });
    expect(lc.classify(b('{"jsonrpc":"2.0","id":2,"result":{}}'))).toEqual({
      kind: 'response',
      id: 2,
    });
    lc.piece(line.subarray(30));
    expect(lc.end(line.length, () => line)).toEqual({
      kind: 'request',
      id: 7,
      method: 'tools/call',
      params: { name: 'x' },
    });
  });

  it('arbitrary bytes, whole and in pieces', () => {
    const lc = new LineClassifier();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), cutsArb, (bytes, cuts) => {
        const buf = Buffer.from(bytes);
        const want = classifyFrameByParse(buf);
        expect(lc.classify(buf)).toEqual(want);
        expect(streamed(buf, cuts)).toEqual(want);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads what classification needs from a value that crosses pieces', () => {
    const msg = b(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'req-😀-'.repeat(50),
        error: { code: -32000, message: 'é'.repeat(300) },
      }),
    );
    const want = classifyFrameByParse(msg);
    for (let cut = 1; cut < msg.length; cut += 7) {
      expect(streamed(msg, [cut, cut + 3, cut + 100])).toEqual(want);
    }
  });

  it('a 64 MiB response in 64 KiB pieces: classified without joining, error found at its byte', () => {
    const text = 'x'.repeat(64 * 1024 * 1024);
    const line = b(
      `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"${text}"}]}}`,
    );
    const cuts = Array.from(
      { length: Math.floor(line.length / 65_536) },
      (_, i) => (i + 1) * 65_536,
    );
    expect(streamed(line, cuts)).toEqual({ kind: 'response', id: 42 });
    line[40 * 1024 * 1024] = 0x09; // a raw tab inside the string: JSON.parse refuses it
    expect(streamed(line, cuts)).toEqual({
      kind: 'parse-error',
      problem: `Bad control character in string literal at byte ${40 * 1024 * 1024}`,
    });
  });

  it('keeps what it read of a piece whose chunk left the thread before the line ended', () => {
    // The worker transfers chunks to main as soon as a batch is sealed; a line still arriving
    // may have begun in one. Its captured members must not point into the detached memory.
    const line = b(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'abc',
        error: { code: 7, message: 'bad' },
        pad: 'x'.repeat(5000),
      }),
    );
    for (const cut of [10, 30, 60, 90]) {
      const first = new Uint8Array(cut);
      first.set(line.subarray(0, cut));
      const lc = new LineClassifier();
      lc.begin();
      lc.piece(Buffer.from(first.buffer));
      structuredClone(first.buffer, { transfer: [first.buffer] }); // detach it
      expect(first.byteLength).toBe(0);
      lc.piece(line.subarray(cut));
      expect(lc.end(line.length, () => line)).toEqual({
        kind: 'response',
        id: 'abc',
        error: { code: 7, message: 'bad' },
      });
    }
  });

  it('keeps members with escaped names and values, and the last of duplicate members', () => {
    const lc = new LineClassifier();
    expect(lc.classify(b('{"jsonrpc":"2\\u002e0","\\u0069d":7,"method":"p\\u0069ng"}'))).toEqual({
      kind: 'request',
      id: 7,
      method: 'ping',
    });
    expect(lc.classify(b('{"jsonrpc":"2.0","id":1,"id":"two","result":null}'))).toEqual({
      kind: 'response',
      id: 'two',
    });
    expect(lc.classify(b('{"jsonrpc":"2.0","method":"m","method":5,"id":1,"result":0}'))).toEqual({
      kind: 'response',
      id: 1,
    });
  });
});

describe('JsonScanner (WebAssembly) limits', () => {
  it('grows its container stack past one page (600,000 levels) and stays exact', () => {
    const deep = b(`${'['.repeat(600_000)}${']'.repeat(600_000)}`);
    expect(scanValid(deep)).toBe(true);
    expect(scanValid(deep, [1000, 599_999, 600_001])).toBe(true);
    const wrong = b(`${'['.repeat(600_000)}}${']'.repeat(599_999)}`);
    expect(scanValid(wrong)).toBe(false);
  });

  it('scans a line larger than its 2 MiB input window, captures included', () => {
    const big = b(JSON.stringify({ jsonrpc: '2.0', pad: 'p'.repeat(5 << 20), id: 77, result: 1 }));
    const lc = new LineClassifier();
    expect(lc.classify(big)).toEqual({ kind: 'response', id: 77 });
  });

  it('two lines in progress at once on one thread do not disturb each other', () => {
    const one = b('{"jsonrpc":"2.0","id":1,"result":{"a":[1,2,3]}}');
    const two = b('{"jsonrpc":"2.0","method":"ping","id":"x"}');
    const a = new LineClassifier();
    const c = new LineClassifier();
    a.begin();
    c.begin();
    a.piece(one.subarray(0, 20));
    c.piece(two.subarray(0, 9));
    a.piece(one.subarray(20));
    c.piece(two.subarray(9));
    expect(a.end(one.length, () => one)).toEqual({ kind: 'response', id: 1 });
    expect(c.end(two.length, () => two)).toEqual({ kind: 'request', id: 'x', method: 'ping' });
  });
});

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
