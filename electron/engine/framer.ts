/**
 * Byte framer for newline-delimited JSON-RPC on a stdio pipe (DESIGN.md "Engine contract").
 *
 * Owns: the bytes of the line being received and the byte counters of the stream.
 * Fed by: the transport worker's stdout reader (`push` per chunk, `end` at EOF).
 * Listens: `onFrame` gets each complete line (one trailing \r stripped, no \n) as bytes;
 * `onOversize` hears about lines that outgrow `maxFrameBytes`.
 *
 * Splits on 0x0A only, before any decoding (never readline: U+2028 must stay inside strings).
 * The limit is enforced on bytes pending without a newline, so a 1 GiB unterminated line
 * costs at most the limit plus one chunk of memory, and the stream resyncs at the next \n.
 */

const LF = 0x0a;
const CR = 0x0d;

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
  /** The stream ended: returns the bytes of an unterminated last line (never delivered). */
  end(): number;
  readonly stats: Readonly<FramerStats>;
  /** Changes the limit from the next byte on (a line already over it stays discarded). */
  setMaxFrameBytes(n: number): void;
}

export function createFramer(options: FramerOptions): Framer {
  const { onFrame, onOversize } = options;
  let maxFrameBytes = options.maxFrameBytes;
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
  let pieces: Buffer[] = [];
  let lineStart = 0; // stream offset of the current line
  let discarding = false;
  let ended = false;

  function deliver(frame: Buffer, offset: number): void {
    let len = frame.length;
    if (len > 0 && frame[len - 1] === CR) len -= 1;
    if (len > maxFrameBytes) {
      // Only reachable when the last pending byte was not \r after all.
      stats.oversizeFrames += 1;
      onOversize?.({ phase: 'start', offset, bytes: len, limit: maxFrameBytes, atEof: false });
      onOversize?.({ phase: 'end', offset, bytes: len, limit: maxFrameBytes, atEof: false });
      return;
    }
    stats.frames += 1;
    if (len > stats.largestFrameBytes) stats.largestFrameBytes = len;
    onFrame(len === frame.length ? frame : frame.subarray(0, len), offset);
  }

  function joinPending(tail: Buffer): Buffer {
    const total = stats.pendingBytes - tail.length;
    // Own ArrayBuffer (not the shared pool) so the worker can transfer it without a copy.
    const out = Buffer.allocUnsafeSlow(stats.pendingBytes);
    let at = 0;
    for (const p of pieces) {
      p.copy(out, at);
      at += p.length;
    }
    if (at !== total) throw new Error(`framer: pending accounting broke (${at} != ${total})`);
    tail.copy(out, at);
    return out;
  }

  function startDiscarding(): void {
    discarding = true;
    pieces = [];
    stats.oversizeFrames += 1;
    onOversize?.({
      phase: 'start',
      offset: lineStart,
      bytes: stats.pendingBytes,
      limit: maxFrameBytes,
      atEof: false,
    });
  }

  function push(chunk: Buffer): void {
    if (ended) throw new Error('framer: push after end');
    const n = chunk.length;
    if (n === 0) return;
    const chunkOffset = stats.bytesIn;
    stats.bytesIn += n;
    let pos = 0;
    while (pos < n) {
      const nl = chunk.indexOf(LF, pos);
      if (nl === -1) {
        // The rest of the chunk belongs to a line still being written.
        const rest = n - pos;
        stats.pendingBytes += rest;
        if (!discarding) {
          if (stats.pendingBytes > pendingLimit) startDiscarding();
          else pieces.push(pos === 0 ? chunk : chunk.subarray(pos));
        }
        return;
      }
      const segment = nl - pos;
      stats.pendingBytes += segment;
      const lineBytes = stats.pendingBytes + 1;
      if (discarding) {
        onOversize?.({
          phase: 'end',
          offset: lineStart,
          bytes: stats.pendingBytes,
          limit: maxFrameBytes,
          atEof: false,
        });
        discarding = false;
      } else if (stats.pendingBytes > pendingLimit) {
        stats.oversizeFrames += 1;
        const info = { offset: lineStart, bytes: stats.pendingBytes, limit: maxFrameBytes };
        onOversize?.({ phase: 'start', ...info, atEof: false });
        onOversize?.({ phase: 'end', ...info, atEof: false });
        pieces = [];
      } else if (pieces.length === 0) {
        deliver(chunk.subarray(pos, nl), lineStart);
      } else {
        const frame = joinPending(chunk.subarray(pos, nl));
        pieces = [];
        deliver(frame, lineStart);
      }
      stats.lineBytes += lineBytes;
      stats.pendingBytes = 0;
      pos = nl + 1;
      lineStart = chunkOffset + pos;
    }
  }

  function end(): number {
    if (ended) return stats.partialBytesAtEof;
    ended = true;
    const partial = stats.pendingBytes;
    if (discarding) {
      onOversize?.({
        phase: 'end',
        offset: lineStart,
        bytes: partial,
        limit: maxFrameBytes,
        atEof: true,
      });
    }
    stats.partialBytesAtEof = partial;
    stats.pendingBytes = 0;
    pieces = [];
    discarding = false;
    return partial;
  }

  function setMaxFrameBytes(n: number): void {
    maxFrameBytes = n;
    pendingLimit = n + 1;
  }

  return { push, end, stats, setMaxFrameBytes };
}
