import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFramer, type FramerStats, type OversizeInfo } from './framer.js';

const LF = 0x0a;
const CR = 0x0d;
const KiB = 1024;
const MiB = 1024 * KiB;

interface Run {
  frames: Buffer[];
  offsets: number[];
  oversize: OversizeInfo[];
  partial: number;
  stats: FramerStats;
}

/** Feeds `chunks` to a fresh framer, copying each frame (the framer may reuse its memory). */
function run(chunks: Buffer[], maxFrameBytes: number): Run {
  const frames: Buffer[] = [];
  const offsets: number[] = [];
  const oversize: OversizeInfo[] = [];
  const framer = createFramer({
    maxFrameBytes,
    onFrame: (frame, offset) => {
      frames.push(Buffer.from(frame));
      offsets.push(offset);
    },
    onOversize: (info) => oversize.push({ ...info }),
  });
  for (const chunk of chunks) framer.push(chunk);
  const partial = framer.end();
  return { frames, offsets, oversize, partial, stats: { ...framer.stats } };
}

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
/** Each chunk gets its own memory, as a pipe read does (the framer keeps chunk views). */
const own = (buf: Uint8Array): Buffer => Buffer.from(buf);

type Chunking =
  | { kind: 'bytes' }
  | { kind: 'fixed'; size: number }
  | { kind: 'cuts'; at: number[] };

const chunkingArb: fc.Arbitrary<Chunking> = fc.oneof(
  fc.constant<Chunking>({ kind: 'bytes' }),
  fc.integer({ min: 1, max: 7 }).map((size): Chunking => ({ kind: 'fixed', size })),
  fc.array(fc.nat(), { maxLength: 40 }).map((at): Chunking => ({ kind: 'cuts', at })),
);

function cut(stream: Buffer, how: Chunking): Buffer[] {
  const n = stream.length;
  let bounds: number[];
  if (how.kind === 'bytes') bounds = Array.from({ length: n + 1 }, (_, i) => i);
  else if (how.kind === 'fixed') {
    bounds = [];
    for (let i = 0; i < n; i += how.size) bounds.push(i);
    bounds.push(n);
  } else bounds = [0, ...how.at.map((x) => x % (n + 1)), n];
  bounds = [...new Set(bounds)].sort((x, y) => x - y);
  const chunks: Buffer[] = [];
  for (let i = 1; i < bounds.length; i++)
    chunks.push(own(stream.subarray(bounds[i - 1], bounds[i])));
  return chunks;
}

// Strings meant to hurt line splitting: separators readline splits on, escapes, astral
// characters (4-byte UTF-8), combining sequences, BOM, ANSI.
const nasty = fc.constantFrom(
  '\u2028',
  '\u2029',
  '\r',
  '\n',
  '\r\n',
  '"',
  '\\',
  '\\n',
  '😀',
  '👩‍👩‍👧',
  '\ufeff',
  '\u001b[31m',
  'é',
  '中',
  '\u0000',
  '\uffff',
  '\u0085',
);
const textArb = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), nasty), { maxLength: 8 })
  .map((parts) => parts.join(''));
const idArb = fc.oneof(
  fc.integer(),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constant(null),
);
const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: idArb,
    method: textArb,
    params: fc.record({ text: textArb, n: fc.double() }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: idArb,
    result: fc.record({
      content: fc.array(fc.record({ type: fc.constant('text'), text: textArb }), { maxLength: 3 }),
    }),
  }),
  fc.jsonValue(),
);

describe('createFramer: properties', () => {
  it('delivers serialized messages byte-identical and in order, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(messageArb, fc.boolean()), { maxLength: 12 }),
        chunkingArb,
        (messages, chunking) => {
          const lines = messages.map(([m]) => b(JSON.stringify(m)));
          const stream = Buffer.concat(
            messages.flatMap(([, crlf], i) => [lines[i], b(crlf ? '\r\n' : '\n')]),
          );
          const r = run(cut(stream, chunking), 1 * MiB);
          expect(r.frames.length).toBe(lines.length);
          let offset = 0;
          r.frames.forEach((frame, i) => {
            expect(frame.equals(lines[i])).toBe(true);
            expect(frame.includes(LF)).toBe(false);
            expect(frame.includes(CR)).toBe(false);
            expect(r.offsets[i]).toBe(offset);
            offset += lines[i].length + (messages[i][1] ? 2 : 1);
          });
          expect(r.oversize).toEqual([]);
          expect(r.partial).toBe(0);
          expect(r.stats.bytesIn).toBe(stream.length);
          expect(r.stats.bytesIn).toBe(r.stats.lineBytes + r.partial);
          expect(r.stats.frames).toBe(lines.length);
          expect(r.stats.largestFrameBytes).toBe(Math.max(0, ...lines.map((l) => l.length)));
        },
      ),
      { numRuns: 200 },
    );
  });

  // Any bytes but \n, optionally ending in one or two \r, so the strip-one-\r rule and the
  // "limit + 1 pending byte for the \r" rule are both exercised near a small limit.
  const bodyArb = fc
    .tuple(
      fc.uint8Array({ maxLength: 40 }).map((u) => u.map((x) => (x === LF ? 0x0b : x))),
      fc.constantFrom('', '\r', '\r\r'),
    )
    .map(([bytes, crs]) => Buffer.concat([bytes, b(crs)]));

  it('keeps bytesIn = lineBytes + partial; discards oversize lines and resyncs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(bodyArb, fc.constantFrom('\n', '\r\n')), { maxLength: 15 }),
        fc.option(bodyArb, { nil: undefined }),
        fc.integer({ min: 1, max: 24 }),
        chunkingArb,
        (lines, tail, max, chunking) => {
          const raws = lines.map(([body, term]) => Buffer.concat([body, b(term)]));
          const stream = Buffer.concat([...raws, tail ?? Buffer.alloc(0)]);

          // Model of the contract.
          const frames: Buffer[] = [];
          const offsets: number[] = [];
          const events: { phase: string; offset: number; atEof: boolean }[] = [];
          const oversizeLen: number[] = [];
          let offset = 0;
          let lineBytes = 0;
          for (const raw of raws) {
            let len = raw.length - 1;
            if (len > 0 && raw[len - 1] === CR) len -= 1;
            if (len <= max) {
              frames.push(raw.subarray(0, len));
              offsets.push(offset);
            } else {
              events.push({ phase: 'start', offset, atEof: false });
              events.push({ phase: 'end', offset, atEof: false });
              oversizeLen.push(len);
            }
            offset += raw.length;
            lineBytes += raw.length;
          }
          const partial = tail?.length ?? 0;
          // The framer starts discarding once more than limit + 1 bytes (room for a \r) are
          // pending; a shorter unterminated tail is only reported as partial.
          if (partial > max + 1) {
            events.push({ phase: 'start', offset, atEof: false });
            events.push({ phase: 'end', offset, atEof: true });
          }

          const r = run(cut(stream, chunking), max);
          expect(r.frames.map((f) => f.toString('hex'))).toEqual(
            frames.map((f) => f.toString('hex')),
          );
          expect(r.offsets).toEqual(offsets);
          expect(r.oversize.map(({ phase, offset, atEof }) => ({ phase, offset, atEof }))).toEqual(
            events,
          );
          for (const e of r.oversize) {
            expect(e.limit).toBe(max);
            if (e.phase === 'start') expect(e.bytes).toBeGreaterThan(max);
          }
          expect(r.partial).toBe(partial);
          expect(r.stats.partialBytesAtEof).toBe(partial);
          expect(r.stats.pendingBytes).toBe(0);
          expect(r.stats.bytesIn).toBe(stream.length);
          expect(r.stats.lineBytes).toBe(lineBytes);
          expect(r.stats.bytesIn).toBe(r.stats.lineBytes + r.partial);
          expect(r.stats.frames).toBe(frames.length);
          expect(r.stats.oversizeFrames).toBe(events.length / 2);
          expect(r.stats.largestFrameBytes).toBe(Math.max(0, ...frames.map((f) => f.length)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('createFramer: examples', () => {
  it('delivers empty and \\r\\n-only lines as 0-byte frames', () => {
    const r = run([b('\n\r\n{"a":1}\n\n\r\n')], 100);
    expect(r.frames.map((f) => f.toString())).toEqual(['', '', '{"a":1}', '', '']);
    expect(r.offsets).toEqual([0, 1, 3, 11, 12]);
    expect(r.stats.frames).toBe(5);
    expect(r.stats.largestFrameBytes).toBe(7);
  });

  it('keeps a lone \\r inside a line and strips only one trailing \\r', () => {
    const r = run([b('a\rb\n'), b('\r\r\n'), b('c\r'), b('\r'), b('\n')], 100);
    expect(r.frames.map((f) => f.toString())).toEqual(['a\rb', '\r', 'c\r']);
    const split = run([b('{"x":"\r'), b('y"}\r'), b('\n')], 100);
    expect(split.frames.map((f) => f.toString())).toEqual(['{"x":"\ry"}']);
  });

  it('never delivers a line without newline at EOF and reports its bytes', () => {
    const r = run([b('{"id":1}\n{"id":2,"res')], 100);
    expect(r.frames.map((f) => f.toString())).toEqual(['{"id":1}']);
    expect(r.partial).toBe(12);
    expect(r.stats.partialBytesAtEof).toBe(12);
    expect(r.stats.lineBytes).toBe(9);
    expect(r.stats.bytesIn).toBe(21);
  });

  for (const [name, split] of [
    ['one chunk', false],
    ['1-byte chunks', true],
  ] as const) {
    const feed = (s: string): Buffer[] => (split ? [...b(s)].map((x) => Buffer.from([x])) : [b(s)]);

    it(`delivers a frame exactly at the limit, with \\n or \\r\\n (${name})`, () => {
      const at = 'x'.repeat(10);
      const r = run(feed(`${at}\n${at}\r\nok\n`), 10);
      expect(r.frames.map((f) => f.toString())).toEqual([at, at, 'ok']);
      expect(r.oversize).toEqual([]);
      expect(r.stats.largestFrameBytes).toBe(10);
    });

    it(`discards a frame one byte over the limit and delivers the next (${name})`, () => {
      for (const over of ['y'.repeat(11), `${'y'.repeat(11)}\r`, 'y'.repeat(12)]) {
        const r = run(feed(`ok1\n${over}\nok2\n`), 10);
        expect(r.frames.map((f) => f.toString())).toEqual(['ok1', 'ok2']);
        expect(r.offsets).toEqual([0, 4 + over.length + 1]);
        expect(r.oversize.map((e) => [e.phase, e.offset, e.limit, e.atEof])).toEqual([
          ['start', 4, 10, false],
          ['end', 4, 10, false],
        ]);
        expect(r.oversize[0].bytes).toBeGreaterThan(10);
        expect(r.oversize[1].bytes).toBeGreaterThanOrEqual(11);
        expect(r.stats.oversizeFrames).toBe(1);
        expect(r.stats.frames).toBe(2);
        expect(r.stats.largestFrameBytes).toBe(3);
        expect(r.stats.bytesIn).toBe(r.stats.lineBytes);
      }
    });
  }

  it('reports an oversize unterminated line at EOF as truncated (atEof)', () => {
    const r = run([b('ok\n'), b('z'.repeat(50))], 10);
    expect(r.frames.map((f) => f.toString())).toEqual(['ok']);
    expect(r.oversize.map((e) => [e.phase, e.offset, e.bytes, e.atEof])).toEqual([
      ['start', 3, 50, false],
      ['end', 3, 50, true],
    ]);
    expect(r.partial).toBe(50);
    expect(r.stats.bytesIn).toBe(r.stats.lineBytes + r.partial);
  });

  it('passes garbage, BOM and ANSI banners through as unchanged bytes', () => {
    const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('{"jsonrpc":"2.0","id":1}')]);
    const ansi = b('\u001b[1;32mServer ready\u001b[0m on stdio');
    const stream = Buffer.concat([garbage, b('\n'), bom, b('\r\n'), ansi, b('\n')]);
    for (const chunking of [{ kind: 'bytes' }, { kind: 'fixed', size: 3 }] as const) {
      const r = run(cut(stream, chunking), 1000);
      expect(r.frames.map((f) => f.toString('hex'))).toEqual(
        [garbage, bom, ansi].map((f) => f.toString('hex')),
      );
    }
  });

  it('copies a frame spanning many chunks into its own transferable buffer', () => {
    const payload = b(
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: { text: '😀é中\u2028'.repeat(5000) } }),
    );
    const stream = Buffer.concat([b('{}\n'), payload, b('\r\n{"next":true}\n')]);
    const chunks = cut(stream, { kind: 'fixed', size: 997 });
    expect(chunks.length).toBeGreaterThan(50);
    const seen: Buffer[] = [];
    const framer = createFramer({ maxFrameBytes: MiB, onFrame: (f) => seen.push(f) });
    for (const chunk of chunks) framer.push(chunk);
    framer.end();
    expect(seen.length).toBe(3);
    const big = seen[1];
    expect(big.equals(payload)).toBe(true);
    // Its own ArrayBuffer (the worker transfers it), not a view into pushed chunks: scribbling
    // over every chunk afterwards leaves it intact.
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(payload.length + 1); // the stripped \r is still behind it
    for (const chunk of chunks) chunk.fill(0x21);
    expect(big.equals(payload)).toBe(true);
    expect(framer.stats.largestFrameBytes).toBe(payload.length);
  });

  it('never hands out a small joined frame inside the shared Buffer pool', () => {
    // Transferring a pooled buffer to another thread would detach Node's 8 KiB pool.
    const seen: Buffer[] = [];
    const framer = createFramer({ maxFrameBytes: 100, onFrame: (f) => seen.push(f) });
    framer.push(b('{"id":'));
    framer.push(b('1}\n'));
    expect(seen.length).toBe(1);
    expect(seen[0].toString()).toBe('{"id":1}');
    expect(seen[0].byteOffset).toBe(0);
    expect(seen[0].buffer.byteLength).toBe(8);
  });

  it('tracks largestFrameBytes of delivered frames only, without \\r\\n', () => {
    const r = run([b('abc\r\n'), b('abcdef\n'), b('x'.repeat(30)), b('\nab\r\n')], 20);
    expect(r.stats.largestFrameBytes).toBe(6);
    expect(r.stats.oversizeFrames).toBe(1);
  });

  it('gives stream offsets of frames across chunks and after discarded lines', () => {
    const r = run([b('aa\nbb'), b('b\n'), b('c'.repeat(40)), b('c\nd'), b('\n\ne\n')], 8);
    expect(r.frames.map((f) => f.toString())).toEqual(['aa', 'bbb', 'd', '', 'e']);
    expect(r.offsets).toEqual([0, 3, 49, 51, 52]);
    expect(r.oversize.map((e) => e.offset)).toEqual([7, 7]);
  });

  it('throws on push after end, and end is idempotent', () => {
    const framer = createFramer({ maxFrameBytes: 10, onFrame: () => {} });
    framer.push(b('abc'));
    expect(framer.end()).toBe(3);
    expect(framer.end()).toBe(3);
    expect(() => framer.push(b('\n'))).toThrow(/after end/);
  });
});
