/**
 * A frame's bytes on main: one Buffer, or — for a large frame that arrived over many pipe
 * chunks — those chunks as they came from the worker (never joined: a 64 MiB frame
 * costs its 64 MiB once). Both answer `length`, `subarray` (a page: a copy only where it
 * crosses chunks) and `toString`, which is all the session's consumers use.
 */
import type { Hash } from 'node:crypto';
import type { WireBuffer } from '../../wire/protocol.js';

export class ChunkedBytes {
  readonly length: number;

  /** `chunks` hold the frame's bytes in order and nothing else. */
  constructor(readonly chunks: readonly Buffer[]) {
    let n = 0;
    for (let i = 0; i < chunks.length; i++) n += chunks[i].length;
    this.length = n;
  }

  /** Bytes [start, end) as one Buffer: a view when they lie in one chunk, else a copy. */
  subarray(start = 0, end = this.length): Buffer {
    start = Math.max(0, Math.min(start, this.length));
    end = Math.max(start, Math.min(end, this.length));
    let at = 0;
    let out: Buffer | null = null;
    let written = 0;
    for (const c of this.chunks) {
      const cEnd = at + c.length;
      if (cEnd > start && at < end) {
        const from = Math.max(start, at) - at;
        const to = Math.min(end, cEnd) - at;
        if (out === null && from === start - at && to - from === end - start) {
          return c.subarray(from, to);
        }
        out ??= Buffer.allocUnsafe(end - start);
        c.copy(out, written, from, to);
        written += to - from;
      }
      at = cEnd;
      if (at >= end) break;
    }
    return out ?? Buffer.alloc(0);
  }

  toBuffer(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.length);
  }

  /** Bytes [start, end) decoded, as Buffer's toString (the whole frame when no range is given). */
  toString(encoding: BufferEncoding = 'utf8', start = 0, end = this.length): string {
    const whole = start <= 0 && end >= this.length;
    return (whole ? this.toBuffer() : this.subarray(start, end)).toString(encoding);
  }
}

export type FrameBytes = Buffer | ChunkedBytes;

export function updateHash(hash: Hash, data: FrameBytes): Hash {
  if (data instanceof ChunkedBytes) for (const c of data.chunks) hash.update(c);
  else hash.update(data);
  return hash;
}

const EMPTY = new ArrayBuffer(0);

/**
 * Finds frames in a batch's chunks (the frames in order, positions taken over the
 * chunks as one run of bytes): a frame inside one chunk is located there (`locate`) or cut as a
 * view (`read`); where it crosses chunks, ChunkedBytes of them, never joined — unless the frame
 * is under half the bytes of the chunks it touches (a 200-byte frame across two 64 KiB chunks):
 * that one is joined into its own buffer, so a crossing frame keeps at most twice its size
 * alive. (A located frame keeps its whole chunk, as do the ~300 others in it.)
 */
export class ChunkReader {
  private j = 0;
  private base = 0;

  /** Set by `within` (and `locate`) when the frame lies in one chunk: the memory holding that
   *  chunk (a slab's, for a view of one) and where in it. */
  buf: ArrayBufferLike = EMPTY;
  at = 0;

  constructor(private readonly buffers: readonly WireBuffer[]) {}

  /** `bytes` bytes at `start`; calls must come with non-decreasing `start`. */
  read(start: number, bytes: number): FrameBytes {
    return this.locate(start, bytes) ?? bufferView(this.buf, this.at, bytes);
  }

  /**
   * Finds `bytes` bytes at `start` without cutting them out when they lie in one chunk: then
   * null, with `buf` and `at` saying where (a view per frame is most of what main spends on a
   * small frame). A frame across chunks comes back cut, as `read` gives it. Calls must come
   * with non-decreasing `start`.
   */
  locate(start: number, bytes: number): FrameBytes | null {
    return this.within(start, bytes) ? null : this.across(start - this.base, bytes);
  }

  /**
   * Whether `bytes` bytes at `start` lie in one chunk: then `buf` and `at` say where. A frame
   * across chunks is left for a reader of its own (`again`), so main's decode loop never calls
   * `across`: inlined there, its Buffer views made TurboFan's compile jobs for that loop far
   * longer, CPU taken from the cores the worker needs.
   */
  within(start: number, bytes: number): boolean {
    const bufs = this.buffers;
    while (this.j < bufs.length - 1 && this.base + bufs[this.j].byteLength <= start) {
      this.base += bufs[this.j].byteLength;
      this.j += 1;
    }
    const ab = bufs[this.j];
    const from = start - this.base;
    if (ab === undefined || from + bytes > ab.byteLength) return false;
    if (ab instanceof ArrayBuffer) {
      this.buf = ab;
      this.at = from;
    } else {
      this.buf = ab.buffer;
      this.at = ab.byteOffset + from;
    }
    return true;
  }

  /** A reader of the same chunks from their start. */
  again(): ChunkReader {
    return new ChunkReader(this.buffers);
  }

  /** A frame that crosses chunks (or lies past them all). */
  private across(from: number, bytes: number): FrameBytes {
    const bufs = this.buffers;
    const pieces: Buffer[] = [];
    let left = bytes;
    let at = from;
    let touched = 0;
    for (let k = this.j; k < bufs.length && left > 0; k++) {
      const n = Math.min(left, bufs[k].byteLength - at);
      pieces.push(wireView(bufs[k], at, n));
      touched += bufs[k].byteLength;
      left -= n;
      at = 0;
    }
    if (bytes * 2 >= touched) return new ChunkedBytes(pieces);
    const joined = new Uint8Array(bytes); // memory of its own: the chunks can go
    for (let i = 0, written = 0; i < pieces.length; written += pieces[i].length, i++) {
      joined.set(pieces[i], written);
    }
    return bufferView(joined.buffer, 0, bytes);
  }
}

/**
 * A Buffer viewing `ab` [offset, offset + length), made the way Node makes its own (a
 * Uint8Array subclass with Buffer.prototype in its chain: Buffer.isBuffer, toString, equals and
 * the rest behave as for any Buffer). Buffer.from(arrayBuffer, …) gets there through argument
 * checks the JIT inlines into each hot caller — main cuts ~200,000 frames a second out of their
 * chunks in a flood, and compiling that path cost more CPU than running it. The arguments here
 * are the codec's own, already in range.
 */
class BufferView extends Uint8Array {}
Object.setPrototypeOf(BufferView.prototype, Buffer.prototype);
// As Node's own: `constructor` is Buffer, so slices (through Buffer's species), util.inspect and
// v8 serialization see a Buffer too. Only a deep-equality check against a Buffer tells them apart.
Object.defineProperty(BufferView.prototype, 'constructor', {
  value: Buffer,
  writable: true,
  configurable: true,
});

export function bufferView(ab: ArrayBufferLike, offset: number, length: number): Buffer {
  // (A SharedArrayBuffer too: Uint8Array takes either; the lib's overloads list ArrayBuffer.)
  return new BufferView(ab as ArrayBuffer, offset, length) as unknown as Buffer;
}

/** bufferView of a chunk as it came from the worker (a view of a slab, or a buffer of its own). */
function wireView(w: WireBuffer, offset: number, length: number): Buffer {
  return w instanceof ArrayBuffer
    ? bufferView(w, offset, length)
    : bufferView(w.buffer, w.byteOffset + offset, length);
}
