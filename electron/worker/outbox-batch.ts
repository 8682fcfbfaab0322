/**
 * One batch of the outbox (outbox.ts): the pipe chunks its frames lie in, the buffers that will
 * be transferred for them, and the frames' metadata columns. Frame positions are taken over the
 * chunks as one run of bytes; a chunk belongs to one batch. `splitBatch`: a batch cut in two
 * (credits). `packed`, `toWire`: the buffers a batch posts, as they cross to main.
 */

import type { WireBuffer } from '../wire/protocol.js';
import { slabId } from '../wire/slabs.js';
import type { MetaColumns } from './meta-columns.js';

export class Batch {
  /** The chunks (as given) and the buffers that will carry them to main. */
  readonly chunks: Buffer[] = [];
  readonly buffers: WireBuffer[] = [];
  /** Bytes of all buffers: the position the next chunk starts at. */
  size = 0;
  /** Frame bytes (what credits count). */
  bytes = 0;

  constructor(public cols: MetaColumns) {}

  get n(): number {
    return this.cols.n;
  }

  /** The last chunk, and where it starts (read for every frame: kept, not looked up). */
  last: Buffer | null = null;
  private lastBase = 0;

  /** Position of chunk[0] in this batch, appending the chunk if it is not the last one. */
  base(chunk: Buffer): number {
    if (this.last === chunk) return this.lastBase;
    return this.adopt(chunk, ownBuffer(chunk));
  }

  /** Appends a chunk and the buffer that carries it; returns where it starts. */
  adopt(chunk: Buffer, buffer: WireBuffer): number {
    this.chunks.push(chunk);
    this.buffers.push(buffer);
    this.last = chunk;
    this.lastBase = this.size;
    this.size += chunk.length;
    return this.lastBase;
  }
}

/**
 * `b` cut before its frame k: the rest as a batch of its own (its frames' positions from its
 * first chunk), and the buffers and frame bytes of the first k. The chunk the two share is
 * copied for the rest from the rest's first byte on (its buffer leaves with the first k), unless
 * it lies in a shared slab: then the rest takes a view of its part. (`b`'s columns keep the
 * first k: the caller takes them.)
 */
export function splitBatch(
  b: Batch,
  k: number,
): { rest: Batch; headBuffers: WireBuffer[]; headBytes: number } {
  const cut = b.cols.start(k); // the rest's first byte
  let j = 0; // the chunk holding it
  let base = 0;
  while (base + b.chunks[j].length <= cut) base += b.chunks[j++].length;
  const rest = new Batch(b.cols.slice(k, b.n));
  const shared = cut > base; // some frame before `cut` lies in chunk j too
  for (let i = j; i < b.chunks.length; i++) {
    let chunk = b.chunks[i];
    let buffer = b.buffers[i];
    if (i === j && shared) {
      const part = chunk.subarray(cut - base);
      buffer = ownBuffer(part);
      chunk = buffer instanceof ArrayBuffer ? Buffer.from(buffer) : part;
    }
    rest.adopt(chunk, buffer);
  }
  for (let i = 0; i < rest.n; i++) {
    rest.cols.setStart(i, rest.cols.start(i) - cut);
    rest.bytes += rest.cols.bytes(i);
  }
  const headBuffers = b.buffers.slice(0, shared ? j + 1 : j);
  return { rest, headBuffers, headBytes: b.bytes - rest.bytes };
}

/** What carries the chunk to main: a view, for a read into a shared slab (main sees the same
 *  memory); else an ArrayBuffer holding exactly the chunk's bytes, fit to be transferred (a copy
 *  unless the chunk is its own whole ArrayBuffer, as pipe reads are). */
function ownBuffer(chunk: Buffer): WireBuffer {
  const ab = chunk.buffer;
  if (isShared(chunk)) return new Uint8Array(ab, chunk.byteOffset, chunk.length);
  if (ab instanceof ArrayBuffer && chunk.byteOffset === 0 && ab.byteLength === chunk.length) {
    return ab;
  }
  const copy = new ArrayBuffer(chunk.length);
  new Uint8Array(copy).set(chunk);
  return copy;
}

/**
 * A batch of many small chunks goes as one buffer, its chunks copied in order (frame positions
 * are taken over the chunks as one run of bytes, so they hold as they are). A server writing a
 * line per write makes pipe reads of a line or a few: transferring each read as a buffer of its
 * own cost the worker a detach and main an ArrayBuffer per read. Chunks of this size or more on
 * average (full pipe reads are 64 KiB) go as they are: copying them would cost more.
 */
const PACK_BELOW_AVERAGE = 16 * 1024;
const PACK_MAX_BYTES = 1024 * 1024;

/** Whether the chunk lies in a shared slab (read-channel.ts): it never leaves the thread. */
export function isShared(chunk: Uint8Array): boolean {
  return chunk.buffer instanceof SharedArrayBuffer;
}

/** The buffers as one when they are many and small (see PACK_BELOW_AVERAGE), else as given.
 *  (Views of slabs are never small and many: a batch holding one goes as it is.) */
export function packed(buffers: WireBuffer[], below = PACK_BELOW_AVERAGE): WireBuffer[] {
  if (buffers.length < 2) return buffers;
  let total = 0;
  for (const b of buffers) {
    if (!(b instanceof ArrayBuffer)) return buffers;
    total += b.byteLength;
  }
  if (total > PACK_MAX_BYTES || total >= below * buffers.length) return buffers;
  const one = new Uint8Array(total);
  let at = 0;
  for (const b of buffers as ArrayBuffer[]) {
    one.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return [one.buffer];
}

/**
 * A batch's buffers as they cross to main: packed when many and small; each ArrayBuffer once in
 * the transfer list; views of slabs shared, not transferred, and named (`slabs`, by position;
 * 0 for an ArrayBuffer) for main to keep one object per slab (slabs.ts).
 */
export function toWire(
  buffers: WireBuffer[],
  packBelow?: number,
): { buffers: WireBuffer[]; slabs?: number[]; transfer: ArrayBuffer[] } {
  const out = packed(buffers, packBelow);
  const transfer = new Set<ArrayBuffer>();
  let slabs: number[] | undefined;
  for (let i = 0; i < out.length; i++) {
    const b = out[i];
    if (b instanceof ArrayBuffer) transfer.add(b);
    else {
      slabs ??= new Array<number>(out.length).fill(0);
      slabs[i] = slabId(b.buffer as SharedArrayBuffer);
    }
  }
  return { buffers: out, slabs, transfer: [...transfer] };
}
