/**
 * FrameStore holding frames in the chunks they arrived in (counted once per buffer), and its
 * memory: what it copies, what it lets go, and 200k frames within both bounds.
 */
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { info, located, own } from '../../../test/fixtures/frame-store-helpers.js';
import { bufferView, ChunkedBytes } from '../transport/frame-bytes.js';
import { InFrame } from '../transport/in-frame.js';
import { FrameStore } from './frame-store.js';

/** An empty frame: holding it needs no memory. */
const NO_ROOM_NEEDED = Buffer.alloc(0);

describe('FrameStore with frames located in their chunks', () => {
  const chunkOf = (text: string): ArrayBuffer => new Uint8Array(Buffer.from(text)).buffer;

  it('keeps each chunk once, whatever the number of its frames, and gives their bytes', () => {
    const a = chunkOf('{"a":1}\n{"b":22}\n');
    const b = chunkOf('{"c":333}\n');
    const store = new FrameStore();
    const s1 = store.add(info(), located(a, 0, 7));
    const s2 = store.add(info(), located(a, 8, 8));
    const s3 = store.add(info(), located(b, 0, 9));
    expect([s1.bytes, s2.bytes, s3.bytes]).toEqual([7, 8, 9]);
    expect(store.heldBytes).toBe(a.byteLength + b.byteLength);
    expect(store.page(s2.seq, 0, 100)?.data.toString()).toBe('{"b":22}');
    expect(store.page(s2.seq, 0, 100)?.data.buffer).toBe(a); // a view, not a copy
    expect(store.previewOf(s3)).toBe('{"c":333}');
    expect(store.sha256(s1.seq)).toBe(createHash('sha256').update('{"a":1}').digest('hex'));
  });

  it('lets a chunk go only with the last of its frames, and counts the budget in chunks', () => {
    // Three chunks of 10 frames of 9 bytes (90 bytes a chunk); room for two chunks.
    const chunks = [0, 1, 2].map((c) => chunkOf(`{"n":${c}00}\n`.repeat(10)));
    const store = new FrameStore(2 * 100);
    const seqs: number[] = [];
    for (const chunk of chunks.slice(0, 2)) {
      for (let i = 0; i < 10; i++) seqs.push(store.add(info(), located(chunk, i * 10, 9)).seq);
    }
    expect(store.heldBytes).toBe(200);
    // The first frame of the third chunk: the budget drops the whole first chunk's frames, and
    // no more (their previews decoded on the way out).
    const next = store.add(info(), located(chunks[2], 0, 9));
    expect(store.heldBytes).toBe(200);
    const all = store.summaries();
    expect(all.filter((x) => x.held).length).toBe(11);
    expect(all.slice(0, 10).every((x) => !x.held && x.preview === '{"n":000}')).toBe(true);
    expect(store.page(seqs[9], 0, 9)).toBeNull();
    expect(store.page(seqs[10], 0, 9)?.data.toString()).toBe('{"n":100}');
    expect(store.page(next.seq, 0, 9)?.data.toString()).toBe('{"n":200}');
    expect(store.droppedBytes).toBe(90);
  });

  it('counts a shared slab whole, once, for the frames located in it (read-channel.ts)', () => {
    const slab = new SharedArrayBuffer(4 * 1024 * 1024);
    Buffer.from(slab).write('{"a":1}\n{"b":22}\n', 1000);
    const store = new FrameStore(16 * 1024 * 1024);
    const s1 = store.add(info(), located(slab, 1000, 7));
    const s2 = store.add(info(), located(slab, 1008, 8));
    expect(store.heldBytes).toBe(slab.byteLength); // what the slab keeps alive, not 15 bytes
    expect(store.page(s2.seq, 0, 100)?.data.toString()).toBe('{"b":22}');
    expect(store.page(s1.seq, 0, 100)?.data.buffer).toBe(slab); // a view, not a copy
    expect(store.sha256(s1.seq)).toBe(createHash('sha256').update('{"a":1}').digest('hex'));
    // A budget smaller than the slab does not hold its frames at all (their summaries stay).
    const small = new FrameStore(1024 * 1024);
    const s3 = small.add(info(), located(slab, 1000, 7));
    expect(small.heldBytes).toBe(0);
    expect(s3.held).toBe(false);
    expect(s3.preview).toBe('{"a":1}');
  });

  it('holds a frame read in many small pieces of one slab, counting the slab once', () => {
    // 8 MiB arriving 16 KiB a read into two 4 MiB slabs: 512 chunks of 2 buffers.
    const slabs = [0, 1].map(() => new SharedArrayBuffer(4 * 1024 * 1024));
    const pieces = [];
    for (let at = 0; at < 8 * 1024 * 1024; at += 16 * 1024) {
      const slab = slabs[Math.floor(at / (4 * 1024 * 1024))];
      pieces.push(Buffer.from(slab, at % (4 * 1024 * 1024), 16 * 1024));
    }
    const data = new ChunkedBytes(pieces);
    const store = new FrameStore(64 * 1024 * 1024);
    const f = new InFrame(0, data.length, 0, 0, 'response', 1, new ArrayBuffer(0), 0, data);
    const s = store.add(info(), f);
    expect(s.held).toBe(true);
    expect(store.heldBytes).toBe(8 * 1024 * 1024);
    expect(store.page(s.seq, 8 * 1024 * 1024 - 4, 100)?.data.length).toBe(4);
  });

  it('evicting summaries lets their chunks go', () => {
    const chunks = [0, 1, 2].map((c) => chunkOf(`{"n":${c}}\n`.repeat(2)));
    const store = new FrameStore(1 << 20, 2);
    for (const chunk of chunks) {
      store.add(info(), located(chunk, 0, 7));
      store.add(info(), located(chunk, 8, 7));
    }
    expect(store.evictedSummaries).toBe(4);
    expect(store.heldBytes).toBe(chunks[2].byteLength);
  });

  it('holds a frame that crossed chunks as the pieces it came in, counting each chunk', () => {
    const a = chunkOf('xx{"a":');
    const b = chunkOf('1}\n');
    const data = new ChunkedBytes([bufferView(a, 2, 5), bufferView(b, 0, 2)]);
    const store = new FrameStore();
    const f = new InFrame(2, 7, 2, 0, 'response', 1, new ArrayBuffer(0), 0, data);
    const s = store.add(info(), f);
    expect(store.heldBytes).toBe(a.byteLength + b.byteLength);
    expect(store.page(s.seq, 0, 100)?.data.toString()).toBe('{"a":1}');
  });

  it("gives a dropped crossing frame's chunks back, each once", () => {
    const a = chunkOf('{"a":');
    const b = chunkOf('1}\n{"b":2}\n');
    const crossed = new ChunkedBytes([bufferView(a, 0, 5), bufferView(b, 0, 2)]);
    const store = new FrameStore(a.byteLength + b.byteLength, 2);
    store.add(info(), new InFrame(0, 7, 0, 0, 'response', 1, new ArrayBuffer(0), 0, crossed));
    store.add(info(), located(b, 3, 7));
    expect(store.heldBytes).toBe(a.byteLength + b.byteLength);
    // Evicting the crossing frame lets `a` go; `b` stays, held by the second frame.
    store.add(info(), NO_ROOM_NEEDED);
    expect(store.heldBytes).toBe(b.byteLength);
    expect(store.droppedBytes).toBe(7);
  });

  it('does not hold a frame whose chunk alone is over the budget, and keeps the others', () => {
    const store = new FrameStore(100);
    const small = store.add(info(), located(chunkOf('{"n":1}\n'), 0, 7));
    const inBig = store.add(info(), located(chunkOf(`{"n":2}\n${' '.repeat(150)}`), 0, 7));
    expect(inBig.held).toBe(false);
    expect(inBig.preview).toBe('{"n":2}');
    expect(small.held).toBe(true);
    expect(store.heldBytes).toBe(8);
  });

  it('counts a dropped frame once, whether the budget or eviction lets it go', () => {
    const store = new FrameStore(100, 2);
    for (let i = 0; i < 3; i++) store.add(info(), own(80));
    // The first went for the budget, the second for the budget; evicting their summaries
    // counts nothing twice.
    expect(store.droppedBytes).toBe(160);
    expect(store.heldBytes).toBe(80);
  });

  it('releases a located chunk once its last frame is dropped', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new FrameStore(1 << 30, 1);
    let chunk: ArrayBuffer | null = chunkOf(`{"a":1}\n`.repeat(1000));
    const ref = new WeakRef(chunk);
    store.add(info(), located(chunk, 0, 7));
    store.add(info(), located(chunk, 8, 7));
    chunk = null;
    store.add(info(), own(10)); // evicts the second summary: the chunk has no frame left
    for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(ref.deref()).toBeUndefined();
  });

  it('holds a located empty frame without its chunk', () => {
    const store = new FrameStore();
    const s = store.add(info(), located(chunkOf('\n'), 0, 0));
    expect(s.held).toBe(true);
    expect(store.heldBytes).toBe(0);
    expect(store.page(s.seq, 0, 10)?.length).toBe(0);
  });

  it("copies an outgoing message that shares Node's pool, counting only its own bytes", () => {
    const store = new FrameStore();
    const pooled = Buffer.from('x'.repeat(3000)); // under Buffer.poolSize / 2: from the pool
    expect(pooled.buffer.byteLength).toBeGreaterThan(6000);
    store.add(info({ dir: 'out', offset: null }), pooled);
    expect(store.heldBytes).toBe(3000);
  });

  it('does not hold a located frame over the budget, but previews it', () => {
    const chunk = chunkOf(`"${'z'.repeat(298)}"\n`);
    const store = new FrameStore(100);
    const s = store.add(info(), located(chunk, 0, 300));
    expect(s.held).toBe(false);
    expect(store.heldBytes).toBe(0);
    expect(s.preview).toBe(`"${'z'.repeat(239)}`);
  });
});

describe('FrameStore memory', () => {
  it('copies a small view into a big shared batch buffer', () => {
    const batch = Buffer.alloc(1 << 20, 0x62);
    const view = batch.subarray(1000, 1100);
    const store = new FrameStore();
    const s = store.add(info(), view);
    expect(store.heldBytes).toBe(100);
    const p = store.page(s.seq, 0, 100);
    expect(p?.data.equals(view)).toBe(true);
    // Not a view of the batch: the batch's megabyte can be freed.
    expect(p?.data.buffer).not.toBe(batch.buffer);
    expect(p?.data.buffer.byteLength).toBeLessThan(batch.length);
    batch.fill(0);
    expect(store.page(s.seq, 0, 3)?.data.toString()).toBe('bbb');
  });

  it('keeps a frame that owns its buffer without copying', () => {
    const frame = own(300_000);
    const store = new FrameStore();
    const s = store.add(info(), frame);
    expect(store.page(s.seq, 0, 10)?.data.buffer).toBe(frame.buffer);
  });

  it('releases the bytes of evicted summaries', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new FrameStore(1 << 30, 2);
    let first: Buffer | null = own(1 << 20);
    const ref = new WeakRef(first);
    store.add(info(), first);
    first = null;
    // Two more frames evict the first summary (the byte budget never fired).
    store.add(info(), own(10));
    store.add(info(), own(10));
    expect(store.evictedSummaries).toBe(1);
    for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(ref.deref()).toBeUndefined();
  });

  it('adds 200k small frames quickly within both bounds', () => {
    const store = new FrameStore(4 << 20, 50_000);
    // As the session adds them: located in the chunks they arrived in, 64 KiB each.
    const chunks = Array.from({ length: 64 }, () => new ArrayBuffer(64 * 1024));
    const start = performance.now();
    for (let i = 0; i < 200_000; i++) {
      const chunk = chunks[Math.floor(i / 300) % chunks.length];
      const at = (i % 300) * 200;
      store.add(info({ offset: i, t: i }), located(chunk, at, 50 + (i % 100), i));
    }
    const elapsed = performance.now() - start;
    expect(store.size).toBe(50_000);
    expect(store.evictedSummaries).toBe(150_000);
    expect(store.heldBytes).toBeLessThanOrEqual(4 << 20);
    expect(store.page(200_000, 0, 1000)?.length).toBe(50 + (199_999 % 100));
    expect(elapsed).toBeLessThan(1000);
  });
});
