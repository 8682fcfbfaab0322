import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fill, info, own } from '../../../test/fixtures/frame-store-helpers.js';
import { ChunkedBytes } from '../transport/frame-bytes.js';
import { FrameStore } from './frame-store.js';

describe('FrameStore summaries', () => {
  it('numbers frames from 1 and summarizes them with a bounded preview', () => {
    const store = new FrameStore();
    const text = `{"jsonrpc":"2.0","id":1,"result":{"s":"${'y'.repeat(1000)}"}}`;
    const s = store.add(info({ id: 1, t: 5, offset: 10 }), Buffer.from(text));
    expect(s).toMatchObject({ seq: 1, dir: 'in', t: 5, offset: 10, id: 1, held: true });
    expect(s.bytes).toBe(Buffer.byteLength(text));
    expect(store.previewOf(s)).toBe(text.slice(0, 240));
    expect(store.add(info({ dir: 'out', offset: null }), Buffer.from('{}')).seq).toBe(2);
    expect(store.size).toBe(2);
    expect(store.heldBytes).toBe(Buffer.byteLength(text) + 2);
  });

  it('previews a frame held as the chunks it arrived in like the same bytes in one buffer', () => {
    // 'é' is 2 bytes from byte 35 on: both chunk cuts (100, 238) and the preview's end (240)
    // fall inside one.
    const text = `{"jsonrpc":"2.0","id":12,"result":"${'é'.repeat(200)}"}`;
    const whole = Buffer.from(text);
    const chunked = new ChunkedBytes([
      whole.subarray(0, 100),
      whole.subarray(100, 238),
      whole.subarray(238),
    ]);
    const store = new FrameStore();
    const a = store.add(info({ id: 12 }), whole);
    const b = store.add(info({ id: 12 }), chunked);
    expect(store.previewOf(b)).toBe(store.previewOf(a));
    expect(a.preview).toBe(whole.subarray(0, 240).toString('utf8'));
    expect(a.preview.endsWith('é\uFFFD')).toBe(true); // the cut character, as Buffer decodes it
  });

  it('decodes a preview when first asked for, keeps it, and before the bytes are dropped', () => {
    const store = new FrameStore(100, 10);
    const a = store.add(info({ id: 1 }), Buffer.from('a'.repeat(60)));
    expect(a.preview).toBe(''); // nothing decoded on the hot path
    expect(store.previewOf(a)).toBe('a'.repeat(60));
    expect(a.preview).toBe('a'.repeat(60)); // kept in the summary
    // Never asked for: decoded just before the byte budget drops the bytes.
    const b = store.add(info({ id: 2 }), Buffer.from('b'.repeat(30)));
    expect(b.preview).toBe('');
    store.add(info({ id: 3 }), Buffer.from('c'.repeat(80))); // 170 > 100: a and b lose bytes
    expect(b.held).toBe(false);
    expect(b.preview).toBe('b'.repeat(30));
    expect(store.previewOf(b)).toBe('b'.repeat(30));
    // Too large to hold at all: decoded at once.
    const big = store.add(info({ id: 4 }), Buffer.from(`x${'y'.repeat(300)}`));
    expect(big.held).toBe(false);
    expect(big.preview).toBe(`x${'y'.repeat(239)}`);
  });

  it('lists summaries with their previews; one evicted before anyone asked has none', () => {
    const store = new FrameStore(1 << 20, 2);
    const first = store.add(info(), Buffer.from('first'));
    const rest = [
      store.add(info(), Buffer.from('second')),
      store.add(info(), Buffer.from('third')),
    ];
    expect(store.summaries().map((s) => s.preview)).toEqual(['second', 'third']);
    expect(store.last(1).map((s) => s.preview)).toEqual(['third']);
    expect(rest.map((s) => s.preview)).toEqual(['second', 'third']);
    expect(store.previewOf(first)).toBe(''); // evicted (maxSummaries): its bytes went with it
  });

  it('lists summaries from a sequence number with a limit, and the last n', () => {
    const store = new FrameStore();
    fill(store, [1, 2, 3, 4, 5]);
    expect(store.summaries(3).map((s) => s.seq)).toEqual([3, 4, 5]);
    expect(store.summaries(0, 2).map((s) => s.seq)).toEqual([1, 2]);
    expect(store.last(2).map((s) => s.seq)).toEqual([4, 5]);
    expect(store.last(100).map((s) => s.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(store.last(0)).toEqual([]);
  });

  it('evicts the oldest summaries past the cap and counts them', () => {
    const store = new FrameStore(1 << 20, 3);
    const all = fill(store, [10, 20, 30, 40, 50]);
    expect(store.size).toBe(3);
    expect(store.evictedSummaries).toBe(2);
    expect(store.summaries().map((s) => s.seq)).toEqual([3, 4, 5]);
    // A summary handed out earlier no longer claims its bytes are held.
    expect(all[0].held).toBe(false);
    expect(all[2].held).toBe(true);
    expect(store.page(all[0].seq, 0, 10)).toBeNull();
    expect(store.sha256(all[1].seq)).toBeNull();
    expect(store.page(all[2].seq, 0, 100)?.length).toBe(30);
    // Evicted summaries release their bytes from the accounting.
    expect(store.heldBytes).toBe(30 + 40 + 50);
  });

  it('keeps lookups right across the internal compaction (more than 4096 evictions)', () => {
    const store = new FrameStore(1 << 30, 100);
    const sums = fill(
      store,
      Array.from({ length: 10_000 }, (_, i) => (i % 50) + 1),
    );
    expect(store.size).toBe(100);
    expect(store.evictedSummaries).toBe(9_900);
    const last = sums.at(-1);
    const first = store.summaries()[0];
    expect(first.seq).toBe(9_901);
    expect(last && store.page(last.seq, 0, 1000)?.length).toBe(last?.bytes);
    expect(store.page(first.seq, 0, 1000)?.length).toBe(first.bytes);
    expect(store.page(9_900, 0, 10)).toBeNull();
    expect(store.heldBytes).toBe(store.summaries().reduce((a, s) => a + (s.held ? s.bytes : 0), 0));
  });
});

describe('FrameStore byte budget', () => {
  it('drops the oldest bytes first and keeps their summaries, marked not held', () => {
    const store = new FrameStore(100);
    const s = fill(store, [40, 40, 40, 40]);
    expect(store.heldBytes).toBe(80);
    expect(store.droppedBytes).toBe(80);
    expect(store.size).toBe(4);
    expect(s.map((x) => x.held)).toEqual([false, false, true, true]);
    expect(store.summaries().map((x) => x.held)).toEqual([false, false, true, true]);
    expect(store.page(1, 0, 10)).toBeNull();
    expect(store.sha256(2)).toBeNull();
    expect(store.page(3, 0, 100)?.length).toBe(40);
  });

  it('never holds more than the budget, whatever the sizes', () => {
    const store = new FrameStore(1000);
    let seen = 0;
    for (let i = 0; i < 500; i++) {
      const n = (i * 37) % 400;
      store.add(info(), own(n));
      seen += n;
      expect(store.heldBytes).toBeLessThanOrEqual(1000);
    }
    expect(store.heldBytes + store.droppedBytes).toBe(seen);
  });

  it('does not hold a frame larger than the whole budget, and keeps the others', () => {
    const store = new FrameStore(100);
    store.add(info(), own(50));
    const big = store.add(info(), own(101));
    expect(big.held).toBe(false);
    expect(big.bytes).toBe(101);
    expect(store.heldBytes).toBe(50);
    expect(store.page(1, 0, 50)?.length).toBe(50);
    expect(store.page(big.seq, 0, 10)).toBeNull();
  });

  it('holds a frame exactly at the budget', () => {
    const store = new FrameStore(100);
    store.add(info(), own(10));
    const s = store.add(info(), own(100));
    expect(s.held).toBe(true);
    expect(store.heldBytes).toBe(100);
    expect(store.page(1, 0, 10)).toBeNull();
  });

  it('clear() forgets everything', () => {
    const store = new FrameStore(100);
    fill(store, [10, 20]);
    store.clear();
    expect(store.size).toBe(0);
    expect(store.heldBytes).toBe(0);
    expect(store.summaries()).toEqual([]);
    expect(store.page(1, 0, 10)).toBeNull();
  });
});

describe('FrameStore pages', () => {
  const data = Buffer.from('0123456789abcdefghij');
  const store = new FrameStore();
  const seq = store.add(info(), data).seq;

  it('returns the requested slice with its bounds', () => {
    const p = store.page(seq, 5, 4);
    expect(p).toMatchObject({ seq, offset: 5, length: 4, totalBytes: 20 });
    expect(p?.data.toString()).toBe('5678');
  });

  it('clamps a negative offset to 0 and a long length to the end', () => {
    const p = store.page(seq, -10, 1000);
    expect(p).toMatchObject({ offset: 0, length: 20 });
    expect(p?.data.toString()).toBe(data.toString());
  });

  it('gives an empty page past the end and for a negative length', () => {
    expect(store.page(seq, 25, 5)).toMatchObject({ offset: 20, length: 0 });
    expect(store.page(seq, 25, 5)?.data.length).toBe(0);
    expect(store.page(seq, 3, -4)).toMatchObject({ offset: 3, length: 0 });
  });

  it('returns null for unknown sequence numbers', () => {
    expect(store.page(0, 0, 1)).toBeNull();
    expect(store.page(-1, 0, 1)).toBeNull();
    expect(store.page(seq + 1, 0, 1)).toBeNull();
    expect(store.page(1.5, 0, 1)).toBeNull();
  });

  it('hashes the held bytes with sha256', () => {
    expect(store.sha256(seq)).toBe(createHash('sha256').update(data).digest('hex'));
    expect(store.sha256(seq + 1)).toBeNull();
  });
});
