/**
 * Shared slabs across the hand-off (electron/worker/read-channel.ts reads long lines into
 * them): the worker names each slab with a number, and main keeps one SharedArrayBuffer object
 * per name.
 *
 * Every message that carries a view of a slab arrives on main with a new SharedArrayBuffer
 * object for the same memory, and the frame store counts memory per buffer object: with a slab
 * object per message, each batch would count the slab again (a few dozen long lines counted as
 * hundreds of MiB held, and frames lost their bytes early). The worker's side is `slabId`; main's is
 * `SlabCache`, one per transport.
 */
import type { WireBuffer } from './protocol.js';

const ids = new WeakMap<SharedArrayBuffer, number>();
let nextId = 1;

/** This thread's name for `sab` (from 1; the same object, the same name). */
export function slabId(sab: SharedArrayBuffer): number {
  let id = ids.get(sab);
  if (id === undefined) {
    id = nextId++;
    ids.set(sab, id);
  }
  return id;
}

/** Entries added between two sweeps of the names whose slab is gone. */
const SWEEP_EVERY = 64;

export class SlabCache {
  private readonly byId = new Map<number, WeakRef<SharedArrayBuffer>>();
  private added = 0;

  /**
   * `buffers` with every view of a slab (`ids[i]` its name; 0 for a buffer of its own) made over
   * the one object kept for that slab. A slab is kept only while something on main holds it.
   */
  canonical(buffers: readonly WireBuffer[], ids: readonly number[]): WireBuffer[] {
    const out = buffers.slice();
    for (let i = 0; i < out.length; i++) {
      const b = out[i];
      const id = ids[i];
      if (!id || b instanceof ArrayBuffer) continue;
      const sab = this.keep(id, b.buffer as SharedArrayBuffer);
      if (sab !== b.buffer) out[i] = new Uint8Array(sab, b.byteOffset, b.byteLength);
    }
    return out;
  }

  /** Slabs named and still held on main (tests). */
  get size(): number {
    let n = 0;
    for (const ref of this.byId.values()) if (ref.deref() !== undefined) n += 1;
    return n;
  }

  private keep(id: number, sab: SharedArrayBuffer): SharedArrayBuffer {
    const kept = this.byId.get(id)?.deref();
    if (kept !== undefined) return kept;
    this.byId.set(id, new WeakRef(sab));
    if (++this.added % SWEEP_EVERY === 0) {
      for (const [k, ref] of this.byId) if (ref.deref() === undefined) this.byId.delete(k);
    }
    return sab;
  }
}
