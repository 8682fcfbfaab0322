import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkReader, type FrameBytes } from '../engine/transport/frame-bytes.js';
import { decodeFrames, type InFrame } from '../engine/transport/in-frame.js';
import { type Classified, classifyFrameByParse } from '../wire/classify.js';
import type { LineRows } from '../wire/columns.js';
import { Outbox } from './outbox.js';
import { createFramer } from './read/framer.js';
import { StdoutReader } from './stdout-reader.js';

// The worker's stdout path in one thread: StdoutReader → Outbox → a structured-clone "post" that
// really transfers (detaches) every chunk, as postMessage does → main's decoding. Whatever the
// chunking, the credits and the flush timing, main must get every line, in order, with its exact
// bytes and JSON.parse's classification; the byte invariant must hold; no buffer may be used
// after it left, or leave twice (structuredClone throws on both).

interface Received {
  offset: number;
  bytes: FrameBytes;
  c: Classified;
}

function toClassified(f: InFrame): Classified {
  const { offset: _o, bytes: _b, start: _s, t: _t, buf: _f, at: _a, cut: _c, ...c } = f;
  for (const k of Object.keys(c) as (keyof typeof c)[]) if (c[k] === undefined) delete c[k];
  return c as Classified;
}

function pipe(
  chunks: Buffer[],
  creditFrames: number,
  creditBytes: number,
  flushEvery: number,
  maxFrameBytes = 1 << 20,
  pack = false,
) {
  const received: Received[] = [];
  const oversize: number[] = [];
  let outstanding: [number, number][] = [];
  const outbox = new Outbox({
    creditFrames,
    creditBytes,
    spillMaxBytes: 1 << 30,
    now: () => 0,
    // Unpacked, every chunk is transferred as it is: a chunk used after it left would throw.
    packBelow: pack ? undefined : 0,
    post: ({ metas, buffers, transfer }) => {
      const msg = structuredClone({ metas, buffers }, { transfer });
      let bytes = 0;
      for (const f of decodeFrames(msg.metas, new ChunkReader(msg.buffers))) {
        received.push({ offset: f.offset, bytes: f.data, c: toClassified(f) });
        bytes += f.bytes;
      }
      outstanding.push([msg.metas.n, bytes]);
    },
    onOverload: () => true,
    onSeal: (chunk) => stdout.sealed(chunk),
  });
  const stdout = new StdoutReader(maxFrameBytes, outbox, (info) => {
    if (info.phase === 'start') oversize.push(info.offset);
  });
  chunks.forEach((chunk, i) => {
    stdout.push(chunk, i);
    if (i % flushEvery === 0) {
      // Main consumed what it had: credits come back, then the worker flushes again.
      for (const [f, b] of outstanding) outbox.credit(f, b);
      outstanding = [];
      outbox.flush();
    }
  });
  const partial = stdout.end();
  outbox.releaseAll();
  return { received, oversize, partial, stats: stdout.stats, parseErrors: stdout.parseErrors };
}

/** Pipe reads own their ArrayBuffer: so do these. */
function own(b: Buffer): Buffer {
  const c = Buffer.allocUnsafeSlow(b.length);
  b.copy(c);
  return c;
}

const line = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .record({ id: fc.nat(), text: fc.string({ unit: 'grapheme', maxLength: 300 }) })
    .map(({ id, text }) => JSON.stringify({ jsonrpc: '2.0', id, result: { text } })),
  fc
    .record({ id: fc.oneof(fc.string(), fc.nat()), method: fc.constantFrom('ping', 'x/y') })
    .map((m) => JSON.stringify({ jsonrpc: '2.0', ...m })),
  fc
    .record(
      {
        progressToken: fc.oneof(fc.string(), fc.nat()),
        progress: fc.double(),
        total: fc.nat(),
      },
      { requiredKeys: [] },
    )
    .map((params) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params })),
  fc.constantFrom('', 'Server starting...', '{"jsonrpc":"2.0","id":1,"result":}', '\ufeff{}'),
  fc
    .nat({ max: 300_000 })
    .map((n) => JSON.stringify({ jsonrpc: '2.0', id: 9, result: 'x'.repeat(n) })),
  // Around the join size (16 KiB), multibyte: reads cut characters of lines held, joined or not.
  fc
    .integer({ min: 1_900, max: 2_300 })
    .map((n) => JSON.stringify({ jsonrpc: '2.0', id: 8, result: 'é😀x'.repeat(n) })),
);

describe('StdoutReader → Outbox → main, with real transfers', () => {
  it('every line arrives once, in order, exact, classified as JSON.parse would', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        (lines, sizes, crlf, creditFrames, flushEvery, tail, pack) => {
          const eol = crlf ? '\r\n' : '\n';
          const stream = Buffer.from(
            lines.map((l) => l + eol).join('') + (tail ? '{"partial' : ''),
          );
          const chunks: Buffer[] = [];
          for (let at = 0, k = 0; at < stream.length; k++) {
            const n = sizes[k % sizes.length];
            chunks.push(own(stream.subarray(at, at + n)));
            at += n;
          }
          // Packed: small chunks travel copied into one buffer per batch (positions must hold).
          const out = pipe(chunks, creditFrames, 1 << 20, flushEvery, 1 << 20, pack);
          const want = lines.map((l) => Buffer.from(l));
          expect(out.received.map((r) => Buffer.from(r.bytes.subarray()).toString())).toEqual(
            lines,
          );
          expect(out.received.map((r) => r.c)).toEqual(want.map((b) => classifyFrameByParse(b)));
          let offset = 0;
          for (const [i, r] of out.received.entries()) {
            expect(r.offset).toBe(offset);
            offset += want[i].length + eol.length;
          }
          // The byte invariant: every byte is a line's (with its newline) or the partial tail.
          expect(out.stats.bytesIn).toBe(out.stats.lineBytes + out.partial);
          expect(out.partial).toBe(tail ? 9 : 0);
          const notJson = out.received.filter((r) => ['parse-error', 'empty'].includes(r.c.kind));
          expect(out.parseErrors).toBe(notJson.length);
        },
      ),
      { numRuns: 150 },
    );
    // Lines up to 300 KB, 150 runs: ~1 s alone, far more beside the whole suite on 2 cores.
  }, 60_000);

  it('lines over the limit are reported, not delivered, whether whole in a chunk or not', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        (lines, sizes, limit, oneHugeChunk) => {
          const stream = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          const chunks: Buffer[] = [];
          if (oneHugeChunk) {
            // Over the scanner's 2 MiB input: the reader splits that one itself.
            chunks.push(own(Buffer.concat([stream, Buffer.from(`${'x'.repeat(3 << 20)}\n`)])));
          } else {
            for (let at = 0, k = 0; at < stream.length; k++) {
              chunks.push(own(stream.subarray(at, at + sizes[k % sizes.length])));
              at += sizes[k % sizes.length];
            }
          }
          const out = pipe(chunks, 1000, 1 << 30, 1, limit);
          const all = oneHugeChunk ? [...lines, 'x'.repeat(3 << 20)] : lines;
          const within = all.filter((l) => Buffer.byteLength(l) <= limit);
          expect(out.received.map((r) => Buffer.from(r.bytes.subarray()).toString())).toEqual(
            within,
          );
          expect(out.received.map((r) => r.c)).toEqual(
            within.map((l) => classifyFrameByParse(Buffer.from(l))),
          );
          const over: number[] = [];
          let offset = 0;
          for (const l of all) {
            if (Buffer.byteLength(l) > limit) over.push(offset);
            offset += Buffer.byteLength(l) + 1;
          }
          expect(out.oversize).toEqual(over);
          expect(out.stats.oversizeFrames).toBe(over.length);
          expect(out.stats.frames).toBe(within.length);
          expect(out.stats.bytesIn).toBe(out.stats.lineBytes + out.partial);
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe('StdoutReader against the reference framer', () => {
  interface Seen {
    frames: [number, string, Classified][];
    oversize: [string, number, number][];
  }

  /** The reader with a recording stand-in for the outbox (no batching, no transfers). */
  function viaReader(chunks: Buffer[], limit: number, relimit: Map<number, number>) {
    const seen: Seen = { frames: [], oversize: [] };
    const addLine = (
      c: Classified | null,
      chunk: Buffer,
      s: number,
      e: number,
      offset: number,
      _t: number,
      id = 0,
    ) => {
      seen.frames.push([
        offset,
        chunk.subarray(s, e).toString('latin1'),
        c ?? { kind: 'response', id },
      ]);
    };
    const outbox = {
      addLine,
      addResponses(
        chunk: Buffer,
        rows: LineRows,
        r0: number,
        r1: number,
        bytes: number,
        offsetDelta: number,
      ) {
        let sum = 0;
        for (let r = r0; r < r1; r++) {
          const s = rows.startAt(r);
          sum += rows.endAt(r) - s;
          addLine(null, chunk, s, rows.endAt(r), offsetDelta + s, 0, rows.idAt(r));
        }
        expect(sum).toBe(bytes);
      },
      addSpanning(
        c: Classified,
        pieces: { chunk: Buffer; start: number; end: number }[],
        bytes: number,
        offset: number,
      ) {
        const joined = Buffer.concat(pieces.map((p) => p.chunk.subarray(p.start, p.end)));
        seen.frames.push([offset, joined.subarray(0, bytes).toString('latin1'), c]);
      },
      chunkDone() {},
    } as unknown as Outbox;
    const reader = new StdoutReader(limit, outbox, (i) =>
      seen.oversize.push([i.phase, i.offset, i.bytes]),
    );
    chunks.forEach((chunk, k) => {
      const l = relimit.get(k);
      if (l !== undefined) reader.setMaxFrameBytes(l);
      reader.push(chunk, 0);
    });
    const partial = reader.end();
    return { seen, partial, stats: { ...reader.stats } };
  }

  function viaFramer(chunks: Buffer[], limit: number, relimit: Map<number, number>) {
    const seen: Seen = { frames: [], oversize: [] };
    const framer = createFramer({
      maxFrameBytes: limit,
      onFrame: (f, offset) =>
        seen.frames.push([offset, f.toString('latin1'), classifyFrameByParse(Buffer.from(f))]),
      onOversize: (i) => seen.oversize.push([i.phase, i.offset, i.bytes]),
    });
    chunks.forEach((chunk, k) => {
      const l = relimit.get(k);
      if (l !== undefined) framer.setMaxFrameBytes(l);
      framer.push(chunk);
    });
    const partial = framer.end();
    return { seen, partial, stats: { ...framer.stats } };
  }

  const check = (numRuns: number, tinyToo: boolean) => {
    const lineAt = (limit: number) =>
      fc.oneof(
        line,
        // Lengths around the limit, with and without a \r (which the limit does not count).
        fc.integer({ min: -2, max: 2 }).map((d) => '7'.repeat(Math.max(0, limit + d))),
        fc.integer({ min: -2, max: 2 }).map((d) => `${'8'.repeat(Math.max(0, limit + d))}\r`),
        fc.constantFrom('\r', '\r\r', '', 'x\ry'),
      );
    const scenario = fc.integer({ min: 0, max: 120 }).chain((limit) =>
      fc.record({
        limit: fc.constant(limit),
        lines: fc.array(lineAt(limit), { maxLength: 40 }),
        crlf: fc.boolean(),
        sizes: fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 6 }),
        relimit: fc.array(fc.tuple(fc.nat({ max: 20 }), fc.integer({ min: 0, max: 200 })), {
          maxLength: 3,
        }),
        tiny: tinyToo ? fc.boolean() : fc.constant(false),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ limit, lines, crlf, sizes, relimit, tiny }) => {
        const eol = crlf ? '\r\n' : '\n';
        let stream = Buffer.from(lines.map((l) => l + eol).join(''));
        // More lines in one chunk than one call into the scanner takes (32,768).
        if (tiny) stream = Buffer.concat([Buffer.from('1\n'.repeat(33_000)), stream]);
        const chunks: Buffer[] = [];
        for (let at = 0, k = 0; at < stream.length; k++) {
          const n = tiny && k === 0 ? 70_000 : sizes[k % sizes.length];
          chunks.push(own(stream.subarray(at, at + n)));
          at += n;
        }
        const changes = new Map(relimit);
        const got = viaReader(chunks, limit, changes);
        const want = viaFramer(chunks, limit, changes);
        expect(got.seen.frames).toEqual(want.seen.frames);
        expect(got.seen.oversize).toEqual(want.seen.oversize);
        expect(got.partial).toBe(want.partial);
        expect(got.stats).toEqual(want.stats);
      }),
      { numRuns },
    );
  };

  it('frames, offsets, classification, oversize reports and counters are the same', () => {
    check(300, false);
  });

  it('...also for a chunk of more lines than one call into the scanner takes', () => {
    check(6, true);
  }, 60_000);
});
