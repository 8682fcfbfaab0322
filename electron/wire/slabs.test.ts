import { describe, expect, it } from 'vitest';
import { SlabCache, slabId } from './slabs.js';

/** What a message gives main: a new SharedArrayBuffer object for the same memory. */
function arrived(sab: SharedArrayBuffer): SharedArrayBuffer {
  const copy = structuredClone(sab);
  expect(copy).not.toBe(sab);
  return copy;
}

describe('slabs across the hand-off', () => {
  it('names a slab the same each time, and two slabs differently', () => {
    const a = new SharedArrayBuffer(16);
    const b = new SharedArrayBuffer(16);
    expect(slabId(a)).toBe(slabId(a));
    expect(slabId(a)).not.toBe(slabId(b));
    expect(slabId(a)).toBeGreaterThan(0);
  });

  it('makes views of one slab over one object, whatever message brought them', () => {
    const slab = new SharedArrayBuffer(1024);
    new Uint8Array(slab).set([1, 2, 3, 4], 100);
    const id = slabId(slab);
    const cache = new SlabCache();
    const own = new ArrayBuffer(8);
    const first = cache.canonical([own, new Uint8Array(arrived(slab), 100, 4)], [0, id]);
    const second = cache.canonical([new Uint8Array(arrived(slab), 102, 2)], [id]);
    expect(first[0]).toBe(own); // a buffer of its own is left as it is
    const v1 = first[1] as Uint8Array;
    const v2 = second[0] as Uint8Array;
    expect(v2.buffer).toBe(v1.buffer); // one object: the frame store counts the slab once
    expect([v1.byteOffset, v1.byteLength, v2.byteOffset, v2.byteLength]).toEqual([100, 4, 102, 2]);
    expect([...v1]).toEqual([1, 2, 3, 4]);
    expect([...v2]).toEqual([3, 4]);
    expect(cache.size).toBe(1);
    // Another slab is another object.
    const other = new SharedArrayBuffer(64);
    const third = cache.canonical([new Uint8Array(arrived(other), 0, 8)], [slabId(other)]);
    expect((third[0] as Uint8Array).buffer).not.toBe(v1.buffer);
    expect(cache.size).toBe(2);
  });
});
