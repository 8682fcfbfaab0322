import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../outbox.js';
import { StdoutReader } from '../stdout-reader.js';
import { createFramer, EDGE_BYTES, type OversizeInfo } from './framer.js';

// A line discarded over the limit keeps copies of its first and last EDGE_BYTES (so main can
// read whose answer it was), whatever the chunking, on both of the framer's paths: the line
// splitter (createFramer) and the region fast path the worker's StdoutReader takes.

const LF = 0x0a;

function cut(stream: Buffer, at: number[]): Buffer[] {
  const bounds = [...new Set([0, ...at.map((x) => x % (stream.length + 1)), stream.length])].sort(
    (x, y) => x - y,
  );
  const out: Buffer[] = [];
  for (let i = 1; i < bounds.length; i++) {
    if (bounds[i] > bounds[i - 1]) out.push(Buffer.from(stream.subarray(bounds[i - 1], bounds[i])));
  }
  return out;
}

function viaFramer(chunks: Buffer[], max: number): OversizeInfo[] {
  const seen: OversizeInfo[] = [];
  const f = createFramer({
    maxFrameBytes: max,
    onFrame: () => {},
    onOversize: (i) => seen.push(i),
  });
  for (const c of chunks) f.push(c);
  f.end();
  return seen;
}

function viaReader(chunks: Buffer[], max: number): OversizeInfo[] {
  const seen: OversizeInfo[] = [];
  const outbox = new Outbox({
    creditFrames: 1e9,
    creditBytes: 1e12,
    spillMaxBytes: 1 << 30,
    now: () => 0,
    post: () => {},
    onOverload: () => true,
    onSeal: (chunk) => reader.sealed(chunk),
  });
  const reader = new StdoutReader(max, outbox, (i) => seen.push(i));
  for (const c of chunks) reader.push(c, 0);
  reader.end();
  return seen;
}

/** A line's bytes (no \n inside; it may end in \r). */
const lineArb = fc
  .tuple(fc.integer({ min: 0, max: 3 * EDGE_BYTES }), fc.integer({ min: 0, max: 255 }))
  .map(([len, seed]) => {
    const b = Buffer.alloc(len);
    for (let i = 0; i < len; i++) b[i] = 0x20 + ((i * 31 + seed) % 90);
    return b;
  });

describe('framer edges: the first and last bytes of a line discarded over the limit', () => {
  for (const [name, feed] of [
    ['line splitter', viaFramer],
    ['stdout reader', viaReader],
  ] as const) {
    it(`${name}: head and tail are the line's own first and last bytes`, () => {
      fc.assert(
        fc.property(
          fc.array(lineArb, { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 8, max: 2 * EDGE_BYTES }),
          fc.array(fc.nat(), { maxLength: 30 }),
          (lines, max, at) => {
            const stream = Buffer.concat(lines.flatMap((l) => [l, Buffer.from([LF])]));
            const seen = feed(cut(stream, at), max);
            const over = lines.filter((l) => l.length > max);
            const ends = seen.filter((i) => i.phase === 'end');
            expect(ends).toHaveLength(over.length);
            ends.forEach((e, k) => {
              const line = over[k];
              const n = Math.min(EDGE_BYTES, line.length);
              expect(Buffer.from(e.head ?? []).equals(line.subarray(0, n))).toBe(true);
              expect(Buffer.from(e.tail ?? []).equals(line.subarray(line.length - n))).toBe(true);
            });
            for (const s of seen.filter((i) => i.phase === 'start')) {
              expect(s.head?.length ?? 0).toBeLessThanOrEqual(EDGE_BYTES);
              expect(s.tail).toBeUndefined();
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it('keeps 4 KiB of each end of a 40 MiB line, never more', () => {
    const id = '"id":77}';
    const big = Buffer.alloc(40 * 1024 * 1024, 0x78);
    Buffer.from('{"result":').copy(big, 0);
    Buffer.from(id).copy(big, big.length - id.length);
    const chunks: Buffer[] = [];
    for (let i = 0; i < big.length; i += 65536) chunks.push(big.subarray(i, i + 65536));
    chunks.push(Buffer.from('\n'));
    const [start, end] = viaFramer(chunks, 1024 * 1024);
    expect(start.phase).toBe('start');
    expect(end.head?.length).toBe(EDGE_BYTES);
    expect(end.tail?.length).toBe(EDGE_BYTES);
    expect(
      Buffer.from(end.tail ?? [])
        .toString()
        .endsWith(id),
    ).toBe(true);
    expect(
      Buffer.from(end.head ?? [])
        .toString()
        .startsWith('{"result":'),
    ).toBe(true);
  });
});
