/**
 * The native relay's wire (electron/tap/native/relay.c), read and written here. Pure: no I/O,
 * no clock. Keep in step with relay.h's `R_*` and `C_*` numbers.
 *
 * Records (relay → tap, on its fd 6): an 8-byte header (type, dir, flags, payload length u32
 * LE) then the payload: little-endian u64s, then bytes. Times are CLOCK_MONOTONIC ns, the clock
 * of `process.hrtime.bigint()`. Copies of stdout and stderr come on fds 7 and 8, raw: each
 * `mark` says how many of them (if `observed`) belong to which piece of the stream.
 */
import type { FromRelay } from '../wire/tap-protocol.js';

export const R = {
  ready: 1,
  mark: 2,
  eof: 3,
  state: 4,
  stdin: 5,
  stdinGap: 6,
  stdinEof: 7,
  injectDone: 8,
  hostGone: 9,
  done: 10,
} as const;

/** The relay's streams: 0 stdout, 1 stderr. */
export type Dir = 0 | 1;

export interface NativeState {
  t: bigint;
  hostBlocked: boolean;
  hostBlockedSince: bigint | null;
  hostBlockedNs: bigint;
  pendingBytes: number;
  deliveredBytes: number;
  stdinWritten: number;
  stdinPendingBytes: number;
  stdinBlockedSince: bigint | null;
  stdinWaitNs: bigint;
  stdinClosed: boolean;
  /** When the host's fd last took bytes again after refusing them (null: it never refused). */
  hostResumedAt: bigint | null;
  /** When the relay last read the server's stdout (null: never). Its copies may come later. */
  serverReadAt: bigint | null;
}

/** A state record as the relay's `state` message (wire/tap-protocol.ts), its times through `at`
 *  (the native relay's clock to the tap's). */
export function stateMessage(s: NativeState, at: (ns: bigint) => number): FromRelay {
  return {
    type: 'state',
    t: at(s.t),
    host: {
      reading: !s.hostBlocked,
      notReadingSince: s.hostBlockedSince === null ? null : at(s.hostBlockedSince),
      notReadingMs: Number(s.hostBlockedNs) / 1e6,
      pendingBytes: s.pendingBytes,
      deliveredBytes: s.deliveredBytes,
      resumedAt: s.hostResumedAt === null ? null : at(s.hostResumedAt),
      serverReadAt: s.serverReadAt === null ? null : at(s.serverReadAt),
    },
    stdin: {
      bytes: s.stdinWritten,
      pendingBytes: s.stdinPendingBytes,
      pendingSince: s.stdinBlockedSince === null ? null : at(s.stdinBlockedSince),
      waitMs: Number(s.stdinWaitNs) / 1e6,
      closed: s.stdinClosed,
    },
  };
}

export type NativeRecord =
  | { type: 'ready'; t: bigint }
  /** `bytes` of stream `dir` from `offset`: read from the server at `readAt`, taken by the
   *  host's fd at `writtenAt` (not at all when `delivered` is false); copied on the copies fd
   *  when `observed`. */
  | {
      type: 'mark';
      dir: Dir;
      offset: number;
      bytes: number;
      readAt: bigint;
      writtenAt: bigint;
      observed: boolean;
      delivered: boolean;
    }
  | { type: 'eof'; dir: Dir; t: bigint; total: number }
  | ({ type: 'state' } & NativeState)
  | { type: 'stdin'; t: bigint; offset: number; data: Uint8Array }
  | { type: 'stdin-gap'; t: bigint; offset: number; bytes: number }
  | { type: 'stdin-eof'; t: bigint }
  | { type: 'inject-done'; seq: number; waitedNs: bigint; error: string | null }
  | { type: 'host-gone'; dir: Dir; t: bigint }
  | { type: 'done'; t: bigint };

const HEADER = 8;
/** A record larger than this is not one the relay writes: the stream is broken. */
const MAX_RECORD = 1024 * 1024;

/** Reads records out of the control stream, whatever its chunks' boundaries. */
export class RecordReader {
  private buf = new Uint8Array(0);
  private len = 0;

  /** The records the chunk completes (it may end inside one: kept for the next). */
  push(chunk: Uint8Array): NativeRecord[] {
    this.append(chunk);
    const out: NativeRecord[] = [];
    let at = 0;
    while (this.len - at >= HEADER) {
      const view = new DataView(this.buf.buffer, this.buf.byteOffset + at, this.len - at);
      const size = view.getUint32(4, true);
      if (size > MAX_RECORD) throw new Error(`native relay: a record of ${size} bytes`);
      if (this.len - at < HEADER + size) break;
      out.push(decode(this.buf.subarray(at, at + HEADER + size)));
      at += HEADER + size;
    }
    if (at > 0) {
      this.buf.copyWithin(0, at, this.len);
      this.len -= at;
    }
    return out;
  }

  private append(chunk: Uint8Array): void {
    if (this.len + chunk.length > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + chunk.length, 4096));
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
    }
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
  }
}

function decode(rec: Uint8Array): NativeRecord {
  const view = new DataView(rec.buffer, rec.byteOffset, rec.length);
  const type = rec[0];
  const dir = (rec[1] === 1 ? 1 : 0) as Dir;
  const flags = rec[2] ?? 0;
  const u = (i: number): bigint => view.getBigUint64(HEADER + i * 8, true);
  const n = (i: number): number => Number(u(i));
  const rest = (from: number): Uint8Array => rec.subarray(HEADER + from * 8);
  switch (type) {
    case R.ready:
      return { type: 'ready', t: u(0) };
    case R.mark:
      return {
        type: 'mark',
        dir,
        offset: n(0),
        bytes: n(1),
        readAt: u(2),
        writtenAt: u(3),
        observed: (flags & 1) !== 0,
        delivered: (flags & 2) === 0,
      };
    case R.eof:
      return { type: 'eof', dir, t: u(0), total: n(1) };
    case R.state:
      return {
        type: 'state',
        t: u(0),
        hostBlocked: u(1) !== 0n,
        hostBlockedSince: u(1) !== 0n ? u(2) : null,
        hostBlockedNs: u(3),
        pendingBytes: n(4),
        deliveredBytes: n(5),
        stdinWritten: n(6),
        stdinPendingBytes: n(7),
        stdinBlockedSince: u(8) !== 0n ? u(8) : null,
        stdinWaitNs: u(9),
        stdinClosed: u(10) !== 0n,
        hostResumedAt: u(11) !== 0n ? u(11) : null,
        serverReadAt: u(12) !== 0n ? u(12) : null,
      };
    case R.stdin:
      // A copy of its own: the reader's buffer is reused.
      return { type: 'stdin', t: u(0), offset: n(1), data: rest(2).slice() };
    case R.stdinGap:
      return { type: 'stdin-gap', t: u(0), offset: n(1), bytes: n(2) };
    case R.stdinEof:
      return { type: 'stdin-eof', t: u(0) };
    case R.injectDone: {
      const error = rest(2);
      return {
        type: 'inject-done',
        seq: n(0),
        waitedNs: u(1),
        error: error.length > 0 ? new TextDecoder().decode(error) : null,
      };
    }
    case R.hostGone:
      return { type: 'host-gone', dir, t: u(0) };
    case R.done:
      return { type: 'done', t: u(0) };
    default:
      throw new Error(`native relay: unknown record type ${type}`);
  }
}

/** Commands to the relay: one of Pipescope's lines for the server's stdin. */
export function injectCommand(seq: number, line: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + 8 + line.length);
  const view = new DataView(out.buffer);
  out[0] = 1;
  view.setUint32(4, 8 + line.length, true);
  view.setBigUint64(HEADER, BigInt(seq), true);
  out.set(line, HEADER + 8);
  return out;
}

/** Stop reading the server once what its pipes hold now is read (written before its exit);
 *  deliver it, then end (its exit left its pipes open). */
export function abandonCommand(): Uint8Array {
  const out = new Uint8Array(HEADER);
  out[0] = 2;
  return out;
}

/** The tap has started threads (its observer's): they give way to the host's path too (the
 *  relay's `--yield-to-host`, yield.c). */
export function yieldCommand(): Uint8Array {
  const out = new Uint8Array(HEADER);
  out[0] = 3;
  return out;
}

export type Piece =
  | { kind: 'bytes'; data: Uint8Array; mark: Extract<NativeRecord, { type: 'mark' }> }
  | { kind: 'gap'; mark: Extract<NativeRecord, { type: 'mark' }> };

/**
 * One stream's copies put together with their marks, in the stream's order: the marks come on
 * the control fd, the copied bytes on a fd of their own, each at its own pace. A piece is given
 * out once its mark and (if it was copied) all of its bytes are here. Bounded by what the relay
 * can have in flight: its observer pipe and the sockets between.
 */
export class Reassembler {
  private readonly marks: Extract<NativeRecord, { type: 'mark' }>[] = [];
  private chunks: Uint8Array[] = [];
  private have = 0;

  constructor(private readonly out: (piece: Piece) => void) {}

  mark(m: Extract<NativeRecord, { type: 'mark' }>): void {
    this.marks.push(m);
    this.drain();
  }

  bytes(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.have += chunk.length;
    this.drain();
  }

  /** Bytes received that no mark has claimed yet. */
  get waitingBytes(): number {
    return this.have;
  }

  /** Whether every mark so far has been given out. */
  get idle(): boolean {
    return this.marks.length === 0;
  }

  /** No more copies will come (the relay is gone): what marks still wait for is a gap. */
  abandon(): void {
    for (const m of this.marks.splice(0)) this.out({ kind: 'gap', mark: m });
    this.chunks = [];
    this.have = 0;
  }

  private drain(): void {
    while (this.marks.length > 0) {
      const m = this.marks[0] as Extract<NativeRecord, { type: 'mark' }>;
      if (!m.observed) {
        this.marks.shift();
        this.out({ kind: 'gap', mark: m });
        continue;
      }
      if (this.have < m.bytes) return;
      this.marks.shift();
      this.out({ kind: 'bytes', data: this.take(m.bytes), mark: m });
    }
  }

  /** The next n bytes, whole chunks moved where they fit, else copied once. */
  private take(n: number): Uint8Array {
    this.have -= n;
    const first = this.chunks[0] as Uint8Array;
    if (first.length === n) {
      this.chunks.shift();
      return first;
    }
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.slice(0, n);
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const c = this.chunks[0] as Uint8Array;
      const k = Math.min(c.length, n - at);
      out.set(c.subarray(0, k), at);
      at += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    return out;
  }
}
