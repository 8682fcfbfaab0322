import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edited, tricky } from '../../../test/fixtures/json-lines.js';
import { Instance } from './json-scan.js';

// Line templates (electron/wasm/template.ts): a line of a shape seen before is answered from
// that shape. The machine alone is the reference: every row, with templates or without, must be
// the same — valid or not, where each member lies, the plain id, the error and where it is.

const ROW = 24;
const inst = new Instance();

/** The meaningful slots of every row splitScan writes for `buf` (whole lines). */
function rows(buf: Buffer, templates: boolean, maxLen = 0x7fffffff): number[][] {
  inst.ex.setTemplates(templates ? 1 : 0);
  inst.bytes().set(buf, inst.input);
  const out: number[][] = [];
  for (let at = 0; at < buf.length; ) {
    const n = inst.ex.splitScan(at, buf.length, maxLen);
    const s = inst.slots();
    const f64 = new Float64Array(s.buffer);
    const base = inst.ex.outAt() >> 2;
    for (let r = 0; r < n; r++) {
      const o = base + r * ROW;
      const row = [s[o], s[o + 20], s[o + 21]];
      if (s[o] === 2) row.push(s[o + 3]);
      else if (s[o] === 0) row.push(s[o + 1], s[o + 2], s[o + 3], s[o + 4], s[o + 5], s[o + 6]);
      else {
        row.push(s[o + 1], s[o + 2], f64[(o + 22) >> 1]);
        for (let f = 1; f <= 6; f++) {
          if (s[o + 2] & (1 << f)) row.push(f, s[o + 6 + 2 * f] - inst.input, s[o + 7 + 2 * f]);
        }
      }
      out.push(row);
    }
    at = inst.ex.splitStop();
  }
  return out;
}

function same(text: string, maxLen?: number): number {
  const buf = Buffer.from(text, 'utf8');
  const want = rows(buf, false, maxLen);
  const got = rows(buf, true, maxLen);
  expect(got, JSON.stringify(text)).toEqual(want);
  return inst.ex.templateLines();
}

const response = (id: string, text: string) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}]}}`;

describe('line templates answer exactly as the machine', () => {
  it('take a flood of one shape from its template after the first line', () => {
    const lines = [];
    for (let i = 1; i <= 500; i++) lines.push(response(String(i), 'x'.repeat(i % 50)));
    expect(same(`${lines.join('\n')}\n`)).toBe(499);
  });

  it('on values that vary in every way a slot allows, and ways it does not', () => {
    const ids = [
      '7',
      '0',
      '-0',
      '123456789012345',
      '1.5',
      '-2e10',
      '3E+2',
      '4e-1',
      '1234567890123456',
    ];
    const texts = ['', 'é中😀\u2028', '\\n\\"\\\\\\/\\b\\f\\r\\t', '\\u00e9\\uD83D\\uDE00', 'a"b'];
    const bad = ['01', '-', '1.', '1e', '.5', '+1', '1.2.3', '--1', '0x1', 'NaN', '1e5x'];
    const badTexts = ['\\x', '\\u12G4', '\\', '\t', '\u0001', '\\u00'];
    const lines = [response('1', 'first')];
    for (const id of [...ids, ...bad]) lines.push(response(id, 'a'));
    for (const t of [...texts, ...badTexts]) lines.push(response('2', t));
    const hits = same(`${lines.join('\n')}\n`);
    expect(hits).toBeGreaterThanOrEqual(ids.length + texts.length - 1);
  });

  it('end a line as the splitter does: one \\r before its \\n left out', () => {
    const a = response('1', 'a');
    // A template learned from `…}\r` (a line that ended \r\r\n) must not read `…}\r\n` as its
    // line plus that \r, nor the other way round.
    same(`${a}\r\r\n${a}\r\n${a}\n${a}\r\r\n${a}\r\n${a} \n${a}\r\r\r\n${a}\n`);
    same(`${a}\n${a}\r\n${a}\r\r\n${a}\n`);
  });

  it('leave a matching line over the limit to the limit', () => {
    const a = response('1', 'abc');
    const long = response('1', 'x'.repeat(100));
    const hits = same(`${a}\n${a}\n${long}\n${a}\n`, a.length + 10);
    expect(hits).toBe(2);
  });

  it('move every captured member by the lengths of the slots before it', () => {
    const lines = [
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":10}}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":"long token","progress":12.5,"total":1e3}}',
      '{"jsonrpc":"2.0","method":"","params":{"progressToken":"","progress":-1,"total":0}}',
      '{"jsonrpc":"2.0","id":"s-1","error":{"code":-32601,"message":"Method not found"}}',
      '{"jsonrpc":"2.0","id":"another id","error":{"code":1,"message":""}}',
      `{"jsonrpc":"${'9'.repeat(70)}","id":1,"result":{}}`, // jsonrpc over its 64-byte cap
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      `{"jsonrpc":"${'9'.repeat(70)}","id":1,"result":{}}`,
      `{"jsonrpc":"${'9'.repeat(62)}","id":1,"result":{}}`, // 64 bytes with its quotes: kept
      `{"jsonrpc":"${'9'.repeat(63)}","id":1,"result":{}}`, // 65: over
      ' { "id" : 5 , "result" : [ 1 , "a" , true , null ] } ',
      ' { "id" : 66 , "result" : [ 2.5 , "bcd" , true , null ] } ',
      ' { "id" : 66 , "result" : [ 2.5 , "bcd" , false , null ] } ',
      '"a bare string"',
      '"another"',
      '42',
      '-7.5e3',
      '[]',
      '{"id":1,"id":2,"result":1}',
      '{"id":3,"id":4,"result":2}',
      '{"a\\u0062":1,"id":"k"}',
      '{"a\\u0062":2,"id":"kk"}',
    ];
    const hits = same(`${lines.join('\n')}\n`);
    expect(hits).toBeGreaterThanOrEqual(8);
  });

  it('keep four shapes, so two interleaved kinds of message both match', () => {
    const lines = [];
    for (let i = 0; i < 100; i++) {
      lines.push(response(String(i), 'r'));
      lines.push(
        `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${i},"progress":${i}}}`,
      );
    }
    expect(same(`${lines.join('\n')}\n`)).toBe(198);
  });

  it('stop trying on lines that never repeat, and catch a flood that starts repeating', () => {
    const lines = [];
    // Arrays of every length: a shape each, which would cost four failed matches a line.
    for (let i = 0; i < 600; i++)
      lines.push(JSON.stringify(Array.from({ length: i % 37 }, (_, j) => j)));
    for (let i = 0; i < 1000; i++) lines.push(response(String(i), 'y'));
    const hits = same(`${lines.join('\n')}\n`);
    expect(hits).toBeGreaterThan(1000 - 200);
  });

  it('leave no half-learned shape when a line cannot be learned (over 64 slots, a member over its cap)', () => {
    const four = ['{"a":1}', '{"b":1}', '{"c":1}', '{"d":1}'];
    const many = JSON.stringify(Array.from({ length: 70 }, (_, i) => i));
    const overCap = `{"jsonrpc":"${'x'.repeat(70)}","q":2}`;
    const lines: string[] = [];
    // Each round fills the four places, then fails to learn a line (its victim drawn at random).
    for (let r = 0; r < 12; r++) {
      lines.push(...four, many, '[5,', ...four, overCap, '{"jsonrpc":"2.0","q":2}');
    }
    same(`${lines.join('\n')}\n`);
    // A request whose params are over the scanner's 1 MiB (one such line a run: the scanner's
    // input holds 2 MiB), before and after the same shape, small.
    const big = `{"jsonrpc":"2.0","id":1,"method":"m","params":"${'p'.repeat(2 ** 20 + 100)}"}`;
    const small = '{"jsonrpc":"2.0","id":2,"method":"m","params":"q"}';
    same(`${[...four, big, small, small].join('\n')}\n`);
    same(`${[...four, small, big, small].join('\n')}\n`);
  });

  it('keep matching one repeating kind of line between lines that never repeat', () => {
    const lines = [];
    for (let i = 0; i < 1000; i++) {
      lines.push(response(String(i), 'r'));
      lines.push(`{"jsonrpc":"2.0","method":"log","params":{"k${i}":1}}`);
    }
    expect(same(`${lines.join('\n')}\n`)).toBeGreaterThan(800);
  });

  it('match in a cycle of five shapes, one more than it keeps', () => {
    const lines = [];
    for (let i = 0; i < 400; i++) for (const k of 'abcde') lines.push(`{"${k}":${i}}`);
    expect(same(`${lines.join('\n')}\n`)).toBeGreaterThan(500);
  });
});

// --- property: many lines of a few shapes, their values drawn wild, then edited -----------------

const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom('0', '-0', '1e400', '01', '-', '1.', '1e', '.5', '+1', '1.2.3', '00', 'e5'),
);
const stringBody = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('\\n', '\\"', '\\\\', '\\u00e9', '\\uD83D', '\\u12G4', '\\x', '\\', '"'),
      fc.constantFrom('\t', '\r', '\u0000', '\u001f', 'é', '😀', '\u2028', '\u2029'),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));
const value = fc.oneof(
  numberText,
  stringBody.map((s) => `"${s}"`),
  fc.constantFrom('true', 'false', 'null', '{}', '[]'),
);
const shapes = [
  (v: string[]) =>
    `{"jsonrpc":"2.0","id":${v[0]},"result":{"content":[{"type":"text","text":${v[1]}}]}}`,
  (v: string[]) =>
    `{"jsonrpc":${v[1]},"method":${v[2]},"params":{"progressToken":${v[0]},"progress":${v[3]}}}`,
  (v: string[]) => `{"jsonrpc":"2.0","id":${v[2]},"error":{"code":${v[0]},"message":${v[1]}}}`,
  (v: string[]) => `[${v[0]}, ${v[1]} ,${v[2]}]`,
  (v: string[]) => `${v[3]}`,
];
const line = fc
  .tuple(fc.nat({ max: shapes.length - 1 }), fc.array(value, { minLength: 4, maxLength: 4 }))
  .map(([k, v]) => shapes[k](v));
const lineEnd = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r\r\n');

describe('line templates against the machine, on random floods', () => {
  it('give every row the machine gives, lines edited or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(line, line, line, edited(line)), lineEnd), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.option(fc.nat({ max: 200 }), { nil: undefined }),
        (ls, maxLen) => {
          const text = ls.map(([l, e]) => l.replace(/\n/g, ' ') + e).join('');
          same(text, maxLen);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('match often on such floods (the property above is not vacuous)', () => {
    // Valid string bodies only, so each shape keeps one template.
    const validBody = fc
      .array(
        fc.oneof(
          fc
            .string({ maxLength: 8 })
            .map((x) => [...x].filter((c) => c >= ' ' && c !== '"' && c !== '\\').join('')),
          fc.constantFrom('\\n', '\\"', '\\\\', '\\u00e9', 'é', '😀', '\u2028'),
        ),
        { maxLength: 6 },
      )
      .map((parts) => parts.join(''));
    const slotLine = fc
      .tuple(fc.nat({ max: 2 }), fc.array(validBody, { minLength: 4, maxLength: 4 }))
      .map(([k, v]) => shapes[k](v.map((x) => `"${x}"`)));
    let lines = 0;
    let hits = 0;
    fc.assert(
      fc.property(fc.array(slotLine, { minLength: 20, maxLength: 40 }), (ls) => {
        lines += ls.length;
        hits += same(`${ls.join('\n')}\n`);
      }),
      { numRuns: 50 },
    );
    expect(hits).toBeGreaterThan(lines / 2);
  });

  it('fall back on hostile bytes in and around a matching shape', () => {
    const a = response('1', 'text');
    fc.assert(
      fc.property(fc.nat(), tricky, (pos, ins) => {
        const p = pos % (a.length + 1);
        same(`${a}\n${a.slice(0, p)}${ins.replace(/\n/g, '')}${a.slice(p)}\n${a}\n`);
      }),
      { numRuns: 400 },
    );
  });
});
