import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrayRows } from '../../../test/fixtures/array-rows.js';
import { b, cutsArb, texts } from '../../../test/fixtures/json-lines.js';
import { type Classified, classifyFrameByParse } from '../../wire/classify.js';
import type { LineRows } from '../../wire/columns.js';
import { LineClassifier } from './line-classifier.js';

// The line classifier must agree with JSON.parse + classifyValue (classifyFrameByParse) on every
// input: these properties compare the two on JSON-RPC-shaped messages, arbitrary JSON, and both
// after random edits that break them in the ways a hostile server would.

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
      // Plain responses, the flood's bulk, so runs of them form.
      fc
        .tuple(fc.nat({ max: 2 ** 40 }), fc.string({ maxLength: 20 }))
        .map(([id, t]) => JSON.stringify({ jsonrpc: '2.0', id, result: { t } })),
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
          const each = (s: number, e: number, c: Classified | null, id: number, over: number) =>
            got.push(over >= 0 ? { over, s, e } : { s, e, c: c ?? { kind: 'response', id } });
          // Runs of plain responses, when taken apart, are the same lines in the same order; the
          // run-at-a-time answers (computed in the module) agree with the rows one by one.
          const plain = (rows: LineRows, r0: number, r1: number) => {
            const starts: number[] = [];
            const ends: number[] = [];
            const ids: number[] = [];
            for (let r = r0; r < r1; r++) {
              each(rows.startAt(r), rows.endAt(r), null, rows.idAt(r), -1);
              starts[r] = rows.startAt(r);
              ends[r] = rows.endAt(r);
              ids[r] = rows.idAt(r);
            }
            const ref = new ArrayRows(starts, ends, ids);
            expect(rows.runBytes(r0, r1)).toBe(ref.runBytes(r0, r1));
            expect(rows.runLargest()).toBe(ref.runLargest());
            const at = 3;
            const got = new Float64Array(at + (r1 - r0) * 5 + 2).fill(-7);
            const want = got.slice();
            const origin = { offsetDelta: 2 ** 33 + limit, base: 4096 + r0, t: 1.5e12 + r1 };
            rows.copyRun(r0, r1, origin, got, at);
            ref.copyRun(r0, r1, origin, want, at);
            expect([...got]).toEqual([...want]);
          };
          const utf8 = isUtf8(chunk);
          expect(lc.classifyRegion(chunk, 0, chunk.length, limit, utf8, each)).toBe(true);
          const byLine = got.splice(0);
          expect(lc.classifyRegion(chunk, 0, chunk.length, limit, utf8, each, plain)).toBe(true);
          expect(got).toEqual(byLine);
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

  it('names methods right however they repeat, collide in its cache, or differ by a byte', () => {
    const lc = new LineClassifier();
    const names = [
      ...Array.from({ length: 60 }, (_, i) => `notifications/m${i}`),
      'notifications/message',
      'notifications/messagf', // one byte off
      'notifications/méssage', // multibyte
      'notifications/mess\\u0061ge', // an escape: decoded by JSON.parse ("...message")
      'x'.repeat(80), // longer than the cache keeps
    ];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i * 7 + round * 13) % names.length];
        const line = b(`{"jsonrpc":"2.0","method":"${name}","params":{}}`);
        expect(lc.classify(line)).toEqual(classifyFrameByParse(line));
      }
    }
  });

  it('a non-JSON line seen before gets the same answer as the first time', () => {
    const lc = new LineClassifier();
    // Repeats (the answer remembered), lines that decode alike but differ in bytes (an invalid
    // byte is answered before any parse; U+FFFD is parsed), a line too long to remember.
    const lines = [
      Buffer.from('y'),
      Buffer.from('y'),
      Buffer.from([0x78, 0xff]),
      Buffer.from('x\ufffd'),
      Buffer.from([0x78, 0xff]),
      Buffer.from('x\ufffd'),
      Buffer.from(`{"a":${'1'.repeat(300)}`),
      Buffer.from(`{"a":${'1'.repeat(300)}`),
    ];
    for (let round = 0; round < 2; round++) {
      for (const line of lines) expect(lc.classify(line)).toEqual(classifyFrameByParse(line));
    }
    expect(lc.classify(lines[2]).problem).not.toBe(lc.classify(lines[3]).problem);
  });

  it('more distinct non-JSON lines than it remembers: each still exact', () => {
    const lc = new LineClassifier();
    for (let i = 0; i < 600; i++) {
      const line = Buffer.from(`log ${i % 300} ${i < 300 ? 'a' : 'b'}`);
      expect(lc.classify(line)).toEqual(classifyFrameByParse(line));
    }
  });

  it('whole lines never disturb a line arriving in pieces on the same classifier', () => {
    const lc = new LineClassifier();
    const line = b(
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":7}}',
    );
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
      kind: 'notification',
      method: 'notifications/progress',
      progressToken: 't',
      progress: 7,
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

describe('LineClassifier on lines that begin {"jsonrpc":"2.0","id": (the scanner takes it in one step)', () => {
  it('classifies them exactly: whole, in pieces and a chunk at a time', () => {
    const lc = new LineClassifier();
    const prefix = '{"jsonrpc":"2.0","id":';
    const lines = [
      '7,"result":{"content":[]}}',
      '"s-1","result":null}',
      '-3,"result":1}',
      '1.5,"result":1}',
      'null,"error":{"code":-32601,"message":"no"}}',
      '9,"method":"ping"}',
      '"r","method":"tools/call","params":{"name":"x"}}',
      '123456789012345678,"result":0}',
      '{"a":1},"result":1}',
      '1,"result":1,"jsonrpc":"1.0"}',
      '1,"id":2,"result":1}',
      '1}',
      '',
      '1,"result":',
    ].map((rest) => prefix + rest);
    for (const line of lines) {
      const buf = b(line);
      const want = classifyFrameByParse(buf);
      expect(lc.classify(buf), line).toEqual(want);
      for (let cut = 1; cut < buf.length; cut += 3)
        expect(streamed(buf, [cut]), line).toEqual(want);
    }
    const chunk = Buffer.from(`${lines.join('\n')}\n`);
    const got: unknown[] = [];
    lc.classifyRegion(chunk, 0, chunk.length, 1 << 20, true, (_s, _e, c, id) =>
      got.push(c ?? { kind: 'response', id }),
    );
    expect(got).toEqual(lines.map((l) => classifyFrameByParse(b(l))));
  });
});

describe('LineClassifier: the scanner instances it uses', () => {
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
