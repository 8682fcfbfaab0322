/**
 * Chunks read into shared slabs (read-channel.ts): they go to main as views of the slab, never
 * transferred nor copied — not when a batch is cut inside one, nor when packing, nor when the
 * line still arriving began in one — and main finds the frames in them as in owned chunks.
 */
import { describe, expect, it } from 'vitest';
import {
  addPieces,
  bytesOf,
  CUT_FRAMES,
  cutByCredits,
  cutFrames,
  framesOf,
  KiB,
  MiB,
  make,
} from '../../test/fixtures/outbox-harness.js';
import { ChunkedBytes, ChunkReader } from '../engine/transport/frame-bytes.js';
import { decodeMetas } from '../engine/transport/in-frame.js';
import { Outbox, type Piece, type PostedBatch } from './outbox.js';
import { packed } from './outbox-batch.js';
import { StdoutReader } from './stdout-reader.js';

/** `texts` read one after another into a fresh slab (as ReadBuffers places them). */
function slab(...texts: (string | Buffer)[]): Buffer[] {
  const sab = new SharedArrayBuffer(4 * 1024 * KiB);
  const all = Buffer.from(sab);
  let at = 0;
  return texts.map((t) => {
    const b = typeof t === 'string' ? Buffer.from(t) : t;
    b.copy(all, at);
    at += b.length;
    return all.subarray(at - b.length, at);
  });
}

const isView = (b: ArrayBuffer | Uint8Array): b is Uint8Array => b instanceof Uint8Array;

describe('Outbox with chunks of shared slabs', () => {
  it('posts views of the slabs, transfers none of them, and main finds every frame', () => {
    const h = make();
    const [r1, r2] = slab(`{"a":1}\n${'x'.repeat(200 * KiB)}`, `${'y'.repeat(100 * KiB)}`);
    const [r3] = slab(`zz\n{"b":2}\n{"c":3}\n`);
    h.box.addLine({ kind: 'response' }, r1, 0, 7, 0, 0);
    const long: Piece[] = [
      { chunk: r1, start: 8, end: r1.length },
      { chunk: r2, start: 0, end: r2.length },
      { chunk: r3, start: 0, end: 2 },
    ];
    addPieces(h, long, 300 * KiB + 2);
    h.box.addLine({ kind: 'response' }, r3, 3, 10, 0, 0);
    h.box.addLine({ kind: 'response' }, r3, 11, 18, 0, 0);
    h.box.flush();
    expect(h.posts).toHaveLength(1);
    const p = h.posts[0];
    expect(p.buffers).toHaveLength(3);
    for (const [i, r] of [r1, r2, r3].entries()) {
      const b = p.buffers[i];
      expect(isView(b) && b.buffer === r.buffer && b.byteOffset === r.byteOffset).toBe(true);
      expect(b.byteLength).toBe(r.length);
    }
    // Only the metadata columns are transferred; the views go named by slab, in order.
    expect(p.transfer.some((b) => (b as unknown) instanceof SharedArrayBuffer)).toBe(false);
    expect(p.transfer).toHaveLength(2);
    const [s1, s2, s3] = p.slabs ?? [];
    expect(s1).toBeGreaterThan(0);
    expect(s2).toBe(s1); // r1 and r2 lie in one slab
    expect(s3).toBeGreaterThan(0);
    expect(s3).not.toBe(s1);
    // A batch of owned chunks carries no names.
    const owned = make();
    owned.box.addLine({ kind: 'response' }, Buffer.from('{"o":1}'), 0, 7, 0, 0);
    owned.box.flush();
    expect(owned.posts[0].slabs).toBeUndefined();
    const frames = framesOf(p).map((f) => (f.length < 20 ? f.toString() : f.length));
    expect(frames).toEqual(['{"a":1}', 300 * KiB + 2, '{"b":2}', '{"c":3}']);
    // Main's reader: a frame inside one view is located in the slab's memory, at its place.
    const reader = new ChunkReader(p.buffers);
    expect(reader.locate(p.frames[2].start, p.frames[2].bytes)).toBeNull();
    expect(reader.buf).toBe(r3.buffer);
    expect(reader.at).toBe(r3.byteOffset + 3);
    // ...and one across views is those views, in the same memory.
    const long2 = bytesOf(p)[1] as ChunkedBytes;
    expect(long2).toBeInstanceOf(ChunkedBytes);
    expect(long2.chunks.map((c) => c.buffer)).toEqual([r1.buffer, r2.buffer, r3.buffer]);
  });

  it('a batch cut by credits inside a shared chunk gives the rest a view of it, not a copy', () => {
    const h = make({ creditFrames: 2 });
    const [chunk] = slab(`{"a":1}\n{"b":2}\n{"c":3}\n${'1'.repeat(100)}`);
    const [rest] = slab(Buffer.alloc(300 * KiB, 0x31));
    cutByCredits(h, chunk, rest);
    const second = h.posts[1].buffers[0];
    expect(isView(second)).toBe(true);
    expect((second as Uint8Array).buffer).toBe(chunk.buffer); // the same memory
    expect((second as Uint8Array).byteOffset).toBe(chunk.byteOffset + 16); // from '{"c":3}' on
    expect(cutFrames(h)).toEqual(CUT_FRAMES);
  });

  it('packs small owned chunks but leaves a batch holding a view as it is', () => {
    const small = Array.from({ length: 40 }, (_, i) => new ArrayBuffer(10 + i));
    expect(packed(small)).toHaveLength(1);
    const [view] = slab('{"v":1}');
    const withView = [...small, new Uint8Array(view.buffer, view.byteOffset, view.length)];
    expect(packed(withView)).toBe(withView);
  });
});

describe('StdoutReader with chunks of shared slabs', () => {
  it('keeps the line still arriving in the slab when its first chunk leaves in a batch', () => {
    const posts: PostedBatch[] = [];
    let reader: StdoutReader | null = null;
    // Batches of one frame (a quarter of 4 credits): each read's batch is sealed at its end.
    const box = new Outbox({
      creditFrames: 4,
      creditBytes: 64 * MiB,
      spillMaxBytes: 64 * MiB,
      now: () => 0,
      post: (b) => posts.push(b),
      onOverload: () => false,
      onSeal: (c) => reader?.sealed(c),
    });
    reader = new StdoutReader(64 * MiB, box, () => {});
    const line = `{"jsonrpc":"2.0","id":7,"result":{"t":"${'q'.repeat(40 * KiB)}"}}`;
    const first = '{"jsonrpc":"2.0","id":1,"result":{}}';
    const [r1, r2] = slab(`${first}\n${line.slice(0, 30 * KiB)}`, `${line.slice(30 * KiB)}\n`);
    reader.push(r1, 0);
    box.flush(); // the batch with frame 1 leaves in r1; the long line began in r1
    reader.push(r2, 1);
    box.flush();
    expect(posts).toHaveLength(2);
    const last = posts[1];
    // Not copied: the long line's pieces are the slab's own memory, r1's part included.
    expect(last.buffers.every((b) => isView(b) && b.buffer === r1.buffer)).toBe(true);
    // r1 travels in both batches (the first's frame, then the line's start): the same memory.
    expect((last.buffers[0] as Uint8Array).byteOffset).toBe(r1.byteOffset);
    expect(last.buffers[0].byteLength).toBe(r1.length);
    const frames = [...posts].flatMap((p) => {
      const reader2 = new ChunkReader(p.buffers);
      const metas = decodeMetas(p.metas);
      return metas.map((m) => reader2.read(m.start, m.bytes).toString());
    });
    expect(frames).toEqual([first, line]);
  });
});
