import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferView, ChunkedBytes, ChunkReader, updateHash } from './frame-bytes.js';

const chunksArb = fc.array(fc.uint8Array({ minLength: 0, maxLength: 40 }), { maxLength: 8 });

describe('ChunkedBytes', () => {
  it('subarray, toString and hashing equal those of the joined bytes, for any range', () => {
    fc.assert(
      fc.property(
        chunksArb,
        fc.integer({ min: -5, max: 400 }),
        fc.integer({ min: -5, max: 400 }),
        (parts, a, z) => {
          const chunks = parts.map((p) => Buffer.from(p));
          const data = new ChunkedBytes(chunks);
          const joined = Buffer.concat(chunks);
          expect(data.length).toBe(joined.length);
          expect(
            Buffer.compare(data.subarray(a, z), joined.subarray(Math.max(0, a), Math.max(0, z))),
          ).toBe(0);
          expect(data.subarray().equals(joined)).toBe(true);
          expect(data.toString('latin1')).toBe(joined.toString('latin1'));
          expect(data.toString('latin1', a, z)).toBe(joined.toString('latin1', a, z));
          expect(data.toBuffer().equals(joined)).toBe(true);
          const h = (d: Buffer | ChunkedBytes) => updateHash(createHash('sha256'), d).digest('hex');
          expect(h(data)).toBe(h(joined));
        },
      ),
    );
  });

  it('a range inside one chunk is a view of it (no copy)', () => {
    const a = Buffer.from('hello ');
    const b = Buffer.from('world');
    const view = new ChunkedBytes([a, b]).subarray(7, 10);
    expect(view.toString()).toBe('orl');
    expect(view.buffer).toBe(b.buffer);
  });
});

describe('ChunkReader (main cutting frames out of a batch)', () => {
  const own = (n: number, fill: number) => {
    const ab = new ArrayBuffer(n);
    new Uint8Array(ab).fill(fill);
    return ab;
  };

  it('a frame inside one chunk is a view; a small one across chunks is joined into its own memory', () => {
    const bufs = [own(100, 0x61), own(100, 0x62)];
    const r = new ChunkReader(bufs);
    const inside = r.read(10, 20) as Buffer;
    expect(inside.buffer).toBe(bufs[0]);
    const across = r.read(90, 20);
    expect(across).toBeInstanceOf(Buffer);
    expect((across as Buffer).buffer).not.toBe(bufs[0]);
    expect((across as Buffer).buffer).not.toBe(bufs[1]);
    expect(across.toString()).toBe(`${'a'.repeat(10)}${'b'.repeat(10)}`);
  });

  it('a large frame across chunks stays the chunks it arrived in (never joined)', () => {
    const bufs = Array.from({ length: 5 }, (_, i) => own(65_536, 0x30 + i));
    const r = new ChunkReader(bufs);
    const big = r.read(100, 5 * 65_536 - 200);
    expect(big).toBeInstanceOf(ChunkedBytes);
    const chunks = (big as ChunkedBytes).chunks;
    expect(chunks.map((c) => c.buffer)).toEqual(bufs);
    expect(big.length).toBe(5 * 65_536 - 200);
    expect(big.subarray(0, 1)[0]).toBe(0x30);
    expect(big.subarray(big.length - 1)[0]).toBe(0x34);
  });
});

describe('bufferView (a frame inside one chunk)', () => {
  it('is a Buffer in every way the session uses one, viewing the chunk without a copy', () => {
    const ab = new ArrayBuffer(32);
    Buffer.from(ab).write('{"jsonrpc":"2.0","id":7} héllo');
    const v = bufferView(ab, 0, 24);
    expect(Buffer.isBuffer(v)).toBe(true);
    expect(v).toBeInstanceOf(Buffer);
    expect(v.buffer).toBe(ab);
    expect(v.toString()).toBe('{"jsonrpc":"2.0","id":7}');
    expect(JSON.parse(v.toString('utf8'))).toEqual({ jsonrpc: '2.0', id: 7 });
    expect(v.equals(Buffer.from('{"jsonrpc":"2.0","id":7}'))).toBe(true);
    expect(Buffer.compare(v, Buffer.from('{'))).toBe(1);
    const tail = bufferView(ab, 25, 6);
    expect(tail.toString('utf8')).toBe('héllo');
    // Slices stay Buffers on the same memory (the frame store's pages and previews).
    const page = v.subarray(1, 10);
    expect(Buffer.isBuffer(page)).toBe(true);
    expect(Object.getPrototypeOf(page)).toBe(Buffer.prototype); // a plain Buffer, in fact
    expect(inspect(v)).toBe(inspect(Buffer.from('{"jsonrpc":"2.0","id":7}')));
    expect(deserialize(serialize(v))).toEqual(Buffer.from('{"jsonrpc":"2.0","id":7}'));
    expect(page.buffer).toBe(ab);
    expect(page.toString()).toBe('"jsonrpc"');
    expect(Buffer.concat([page, tail]).toString()).toBe('"jsonrpc"héllo');
    expect(createHash('sha256').update(v).digest('hex')).toBe(
      createHash('sha256').update('{"jsonrpc":"2.0","id":7}').digest('hex'),
    );
  });
});
