/**
 * One batch of the outbox (outbox.ts): the pipe chunks its frames lie in, the buffers that will
 * be transferred for them, and the frames' metadata columns. Frame positions are taken over the
 * chunks as one run of bytes; a chunk belongs to one batch.
 */
import type { MetaColumns } from '../engine/frame-codec.js';

export class Batch {
  /** The chunks (as given) and the buffers that will be transferred for them. */
  readonly chunks: Buffer[] = [];
  readonly buffers: ArrayBuffer[] = [];
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
  adopt(chunk: Buffer, buffer: ArrayBuffer): number {
    this.chunks.push(chunk);
    this.buffers.push(buffer);
    this.last = chunk;
    this.lastBase = this.size;
    this.size += chunk.length;
    return this.lastBase;
  }
}

/** An ArrayBuffer holding exactly the chunk's bytes, fit to be transferred (a copy unless the
 *  chunk is its own whole ArrayBuffer, as pipe reads are). */
function ownBuffer(chunk: Buffer): ArrayBuffer {
  const ab = chunk.buffer;
  if (ab instanceof ArrayBuffer && chunk.byteOffset === 0 && ab.byteLength === chunk.length) {
    return ab;
  }
  const copy = new ArrayBuffer(chunk.length);
  new Uint8Array(copy).set(chunk);
  return copy;
}
