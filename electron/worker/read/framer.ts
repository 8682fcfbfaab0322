/**
 * Byte framer for newline-delimited JSON-RPC on a stdio pipe (DESIGN.md "Engine contract").
 *
 * Two faces over one core. `createLineSplitter` (the transport worker's StdoutReader) owns the
 * byte counters and the limit, and reports lines as positions in the chunks they arrived in —
 * whole in one chunk, or piece by piece — copying nothing. `createFramer` (the public framer,
 * benchmarked on its own) also owns the pieces of the line being received and gives `onFrame`
 * each complete line (one trailing \r stripped, no \n) as one buffer. Both are fed `push` per
 * chunk and `end` at EOF; `onOversize` hears about lines that outgrow `maxFrameBytes`.
 *
 * Splits on 0x0A only, before any decoding (never readline: U+2028 must stay inside strings).
 * The limit is enforced on bytes pending without a newline, so a 1 GiB unterminated line
 * costs at most the limit plus one chunk of memory, and the stream resyncs at the next \n.
 */

const LF = 0x0a;
const CR = 0x0d;
/** Bytes kept of each end of a line while it is discarded over the limit (for its id). */
export const EDGE_BYTES = 4096;

export interface OversizeInfo {
  /** `start`: the limit was just exceeded (bytes discarded from here on);
   *  `end`: the oversize line ended (at a newline, or at EOF with `atEof`). */
  phase: 'start' | 'end';
  /** Stream offset of the line's first byte. */
  offset: number;
  /** Bytes of the line seen so far (without newline). */
  bytes: number;
  limit: number;
  atEof: boolean;
  /** Copies of the line's first and (at `end`) last bytes, at most EDGE_BYTES each: enough
   *  to read its id (SDKs write `"id"` first or last), never the line. Absent after a gap. */
  head?: Uint8Array;
  tail?: Uint8Array;
}

export interface FramerStats {
  /** Every byte pushed. */
  bytesIn: number;
  /** Bytes of complete lines, newline included (delivered, oversize or empty alike). */
  lineBytes: number;
  /** Complete lines delivered through onFrame. */
  frames: number;
  /** Lines that exceeded the limit. */
  oversizeFrames: number;
  /** Largest delivered frame (bytes, without \r\n). */
  largestFrameBytes: number;
  /** Bytes since the last newline right now. */
  pendingBytes: number;
  /** Bytes of the unterminated last line, set by end(). */
  partialBytesAtEof: number;
}

export interface FramerOptions {
  maxFrameBytes: number;
  /** A complete line. `offset` is the stream offset of its first byte. The buffer may be a
   *  view into a chunk that is reused after the call returns: copy what must outlive it. */
  onFrame(frame: Buffer, offset: number): void;
  onOversize?(info: OversizeInfo): void;
}

export interface Framer {
  push(chunk: Buffer): void;
  /** `bytes` of the stream that will never be pushed (see LineSink.gap). */
  gap?(bytes: number): void;
  /** The stream ended: returns the bytes of an unterminated last line (never delivered). */
  end(): number;
  readonly stats: Readonly<FramerStats>;
  /** Changes the limit from the next byte on (a line already over it stays discarded). */
  setMaxFrameBytes(n: number): void;
}

/**
 * Where a line splitter's lines go, as positions in the chunks they arrived in: nothing is
 * copied or joined, so a consumer can hand whole chunks on (the transport worker transfers
 * them to main) and validate a long line from the pieces it arrived in.
 */
export interface LineSink {
  /** A line that lies whole in `chunk`: chunk[start, end), without \r\n. */
  line(chunk: Buffer, start: number, end: number, offset: number): void;
  /** `chunk` ended inside a line: chunk[start, chunk.length) is more of it (start is 0 past the
   *  line's first chunk). Not called for a line already over the limit. */
  partial(chunk: Buffer, start: number): void;
  /** The line given by `partial` calls ended at chunk[end] (its newline): chunk[0, end) is its
   *  last piece (maybe empty) and `length` its bytes without \r\n. A \r counted out may be
   *  the last byte of the last piece or, when that piece is empty, of the last partial. */
  lineEnd(chunk: Buffer, end: number, length: number, offset: number): void;
  oversize?(info: OversizeInfo): void;
  /** Bytes of the stream never seen (a tap's observer fell behind): the line in progress is
   *  dropped, and what follows up to the next newline is skipped. */
  gap?(offset: number, bytes: number): void;
  /**
   * Optional: the whole lines of a chunk in one run, chunk[start, end) (each ending in \n, `end`
   * just after the last), starting at stream offset `offset`, instead of one `line` call each.
   * The sink splits them itself and reports every line to `tally`, in order: its bytes without
   * \r\n when it is within `limit`, or as over the limit. (The transport worker splits and
   * scans a chunk's small frames in one WebAssembly call.)
   */
  region?(
    chunk: Buffer,
    start: number,
    end: number,
    offset: number,
    limit: number,
    tally: RegionTally,
  ): void;
}

/** What a sink that takes `region`s reports of each line in one. */
export interface RegionTally {
  /** A line within the limit, of `bytes` bytes without \r\n. */
  line(bytes: number): void;
  /** `count` lines within the limit, the longest `largest` bytes. */
  lines(count: number, largest: number): void;
  /** A line over the limit at stream offset `offset`, `bytes` long without its \n. */
  over(offset: number, bytes: number): void;
}

export type LineSplitter = Framer;

const EMPTY = Buffer.alloc(0);

/**
 * The first and last EDGE_BYTES of the line being received, copied as it arrives (at most
 * EDGE_BYTES per chunk of a line that spans chunks; nothing for a line whole in one chunk
 * until it is found over the limit), so a line discarded over the limit still says whose
 * answer it was. Two fixed buffers, reused for every line.
 */
class Edges {
  private readonly head = Buffer.allocUnsafeSlow(EDGE_BYTES);
  private headLen = 0;
  private readonly tail = Buffer.allocUnsafeSlow(EDGE_BYTES);
  private tailLen = 0;

  /** chunk[from, to) is the line's next run of bytes. */
  add(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    if (this.headLen < EDGE_BYTES) {
      const take = Math.min(n, EDGE_BYTES - this.headLen);
      chunk.copy(this.head, this.headLen, from, from + take);
      this.headLen += take;
    }
    if (n >= EDGE_BYTES) {
      chunk.copy(this.tail, 0, to - EDGE_BYTES, to);
      this.tailLen = EDGE_BYTES;
      return;
    }
    const keep = Math.min(this.tailLen, EDGE_BYTES - n);
    if (keep < this.tailLen) this.tail.copy(this.tail, 0, this.tailLen - keep, this.tailLen);
    chunk.copy(this.tail, keep, from, to);
    this.tailLen = keep + n;
  }

  headCopy(): Uint8Array {
    return new Uint8Array(this.head.subarray(0, this.headLen));
  }

  tailCopy(): Uint8Array {
    return new Uint8Array(this.tail.subarray(0, this.tailLen));
  }

  reset(): void {
    this.headLen = 0;
    this.tailLen = 0;
  }
}

/** The framer's core: splits chunks into lines by bytes and reports them to `sink`. */
export function createLineSplitter(maxFrameBytes: number, sink: LineSink): LineSplitter {
  // A line may carry one \r before its \n: allow it while the line is still pending.
  let pendingLimit = maxFrameBytes + 1;
  const stats: FramerStats = {
    bytesIn: 0,
    lineBytes: 0,
    frames: 0,
    oversizeFrames: 0,
    largestFrameBytes: 0,
    pendingBytes: 0,
    partialBytesAtEof: 0,
  };
  let lineStart = 0; // stream offset of the current line
  let discarding = false;
  /** The discard was started by a gap, not by the limit (no oversize frame is counted). */
  let gapping = false;
  let ended = false;
  let lastPendingByte = -1; // last byte given to `partial` (for a \r before an empty tail)
  const edges = new Edges();
  /** The chunk being pushed and its stream offset (for a region's line over the limit). */
  let current: Buffer = EMPTY;
  let currentOffset = 0;

  function oversize(phase: 'start' | 'end', bytes: number, atEof = false): void {
    const info: OversizeInfo = { phase, offset: lineStart, bytes, limit: maxFrameBytes, atEof };
    info.head = edges.headCopy();
    if (phase === 'end') info.tail = edges.tailCopy();
    sink.oversize?.(info);
  }

  /** Counts a line of `len` bytes (\r stripped); false if it is over the limit after all. */
  function accept(len: number, chunk: Buffer, from: number, to: number): boolean {
    if (len > maxFrameBytes) {
      // Only reachable when the last pending byte was not \r after all.
      stats.oversizeFrames += 1;
      edges.add(chunk, from, to);
      oversize('start', len);
      oversize('end', len);
      return false;
    }
    stats.frames += 1;
    if (len > stats.largestFrameBytes) stats.largestFrameBytes = len;
    return true;
  }

  const tally: RegionTally = {
    line(bytes) {
      stats.frames += 1;
      if (bytes > stats.largestFrameBytes) stats.largestFrameBytes = bytes;
    },
    lines(count, largest) {
      stats.frames += count;
      if (largest > stats.largestFrameBytes) stats.largestFrameBytes = largest;
    },
    over(offset, bytes) {
      stats.oversizeFrames += 1;
      const at = offset - currentOffset;
      edges.reset();
      edges.add(current, at, at + bytes);
      const info = { offset, bytes, limit: maxFrameBytes, atEof: false, head: edges.headCopy() };
      sink.oversize?.({ phase: 'start', ...info });
      sink.oversize?.({ phase: 'end', ...info, tail: edges.tailCopy() });
      edges.reset();
    },
  };

  function push(chunk: Buffer): void {
    if (ended) throw new Error('framer: push after end');
    const n = chunk.length;
    if (n === 0) return;
    const chunkOffset = stats.bytesIn;
    stats.bytesIn += n;
    current = chunk;
    currentOffset = chunkOffset;
    let pos = 0;
    while (pos < n) {
      if (sink.region && stats.pendingBytes === 0 && !discarding) {
        // Between lines: the chunk's whole lines go to the sink in one run.
        const last = chunk.lastIndexOf(LF);
        if (last >= pos) {
          sink.region(chunk, pos, last + 1, chunkOffset + pos, maxFrameBytes, tally);
          stats.lineBytes += last + 1 - pos;
          pos = last + 1;
          lineStart = chunkOffset + pos;
          continue;
        }
      }
      const nl = chunk.indexOf(LF, pos);
      if (nl === -1) {
        // The rest of the chunk belongs to a line still being written.
        stats.pendingBytes += n - pos;
        if (!gapping) edges.add(chunk, pos, n);
        if (!discarding) {
          if (stats.pendingBytes > pendingLimit) {
            discarding = true;
            stats.oversizeFrames += 1;
            oversize('start', stats.pendingBytes);
          } else {
            sink.partial(chunk, pos);
            lastPendingByte = chunk[n - 1];
          }
        }
        return;
      }
      const pending = stats.pendingBytes; // bytes of this line in earlier chunks
      stats.pendingBytes += nl - pos;
      const total = stats.pendingBytes;
      if (discarding) {
        if (!gapping) {
          edges.add(chunk, pos, nl);
          oversize('end', total);
        }
        discarding = false;
        gapping = false;
      } else if (total > pendingLimit) {
        stats.oversizeFrames += 1;
        edges.add(chunk, pos, nl);
        oversize('start', total);
        oversize('end', total);
      } else if (pending === 0) {
        const end = nl > pos && chunk[nl - 1] === CR ? nl - 1 : nl;
        if (accept(end - pos, chunk, pos, end)) sink.line(chunk, pos, end, lineStart);
      } else {
        const lastByte = nl > 0 ? chunk[nl - 1] : lastPendingByte;
        const len = lastByte === CR ? total - 1 : total;
        if (accept(len, chunk, pos, nl)) sink.lineEnd(chunk, nl, len, lineStart);
      }
      stats.lineBytes += total + 1;
      stats.pendingBytes = 0;
      edges.reset();
      pos = nl + 1;
      lineStart = chunkOffset + pos;
    }
    current = EMPTY;
  }

  function end(): number {
    if (ended) return stats.partialBytesAtEof;
    ended = true;
    const partial = stats.pendingBytes;
    if (discarding && !gapping) oversize('end', partial, true);
    stats.partialBytesAtEof = partial;
    stats.pendingBytes = 0;
    discarding = false;
    return partial;
  }

  function setMaxFrameBytes(n: number): void {
    maxFrameBytes = n;
    pendingLimit = n + 1;
  }

  function gap(bytes: number): void {
    if (ended || bytes <= 0) return;
    stats.bytesIn += bytes;
    stats.pendingBytes += bytes;
    edges.reset();
    if (discarding) return;
    discarding = true;
    gapping = true;
    sink.gap?.(lineStart, stats.pendingBytes);
  }

  return { push, gap, end, stats, setMaxFrameBytes };
}

/** The framer of the engine contract: each line as one buffer (a line that spans chunks is
 *  joined into its own buffer, so the worker can transfer it without a copy). */
export function createFramer(options: FramerOptions): Framer {
  const { onFrame } = options;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  return createLineSplitter(options.maxFrameBytes, {
    line(chunk, start, end, offset) {
      onFrame(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end), offset);
    },
    partial(chunk, start) {
      const piece = start === 0 ? chunk : chunk.subarray(start);
      pieces.push(piece);
      pieceBytes += piece.length;
    },
    lineEnd(chunk, end, length, offset) {
      // Own ArrayBuffer (not the shared pool) so the worker can transfer it without a copy.
      const out = Buffer.allocUnsafeSlow(pieceBytes + end);
      let at = 0;
      for (const p of pieces) {
        p.copy(out, at);
        at += p.length;
      }
      chunk.copy(out, at, 0, end);
      pieces = [];
      pieceBytes = 0;
      onFrame(length === out.length ? out : out.subarray(0, length), offset);
    },
    oversize(info) {
      if (info.phase === 'start') {
        pieces = [];
        pieceBytes = 0;
      }
      options.onOversize?.(info);
    },
  });
}
