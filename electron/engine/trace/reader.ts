/**
 * Trace reader: opens a trace of any size within bounded memory.
 *
 * Owns: an open file handle and a compact columnar index of the trace's event lines (file
 * offset, length, type, `t`, and a frame's or stderr chunk's byte size: 25 bytes a line).
 * Fed by: one streaming pass over the file, split on byte 0x0A in fixed-size chunks (never
 * readline, never the whole file in memory). Listens: `report`, `replay`, `export`, and the app
 * (frames list, scrubber), which read single events or frame text on demand by offset.
 *
 * The writer puts `t` and `type` first on every line, and `text` last: the index is built from
 * each line's first bytes; lines of other writers up to 1 MiB are parsed whole as a fallback.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import {
  isTraceEventType,
  parseTraceHeader,
  TRACE_EVENT_TYPES,
  type TraceEvent,
  type TraceEventType,
  type TraceFrameEvent,
  type TraceHeader,
  usableEvent,
} from '../../../shared/trace-format.js';

import { Columns } from './index-columns.js';

export class TraceReadError extends Error {}

const CHUNK_BYTES = 1024 * 1024;
/** Lines up to this size are kept whole during the scan (for the header and the fallback). */
const FULL_LINE_BYTES = 1024 * 1024;
/** The index reads `t`, `type` and `bytes` from this many first bytes of a line. */
const PREFIX_BYTES = 1024;
const PREFIX = /^\{"t":(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?),"type":"([a-z]+)"/;
/** Index codes of event types: their position in the format's own list. */
const TYPE_CODES: readonly TraceEventType[] = TRACE_EVENT_TYPES;
const UNKNOWN = 0x1f;
/** Flag bits in the type column, next to the 5-bit type code. */
const TYPE_MASK = 0x1f;
const OUT_FLAG = 0x40;
const TRUNCATED_FLAG = 0x20;

export interface TraceOpenInfo {
  /** Bytes of the file. */
  fileBytes: number;
  /** Lines that could not be read as events (counted, skipped). */
  badLines: number;
  /** Bytes after the last newline (a trace cut mid-line, e.g. by a crash). */
  partialTailBytes: number;
  scanMs: number;
}

/** Lines read together in one read (events() over consecutive lines). */
const BLOCK_BYTES = 1024 * 1024;

export class TraceReader {
  /** Lines indexed at the scan that turned out unusable when read (cut, damaged, wrong shape). */
  private readonly unusable = new Set<number>();

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    readonly header: TraceHeader,
    private readonly cols: Columns,
    readonly info: TraceOpenInfo,
  ) {}

  /** Scans `path` once and returns a reader; throws TraceReadError when it is no trace. */
  static async open(path: string): Promise<TraceReader> {
    let fh: FileHandle;
    try {
      // Non-blocking: a FIFO opens at once instead of holding a thread-pool thread until a
      // writer comes (four such opens starved every other file operation of the process).
      fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (e) {
      throw new TraceReadError(`cannot read ${path}: ${(e as Error).message}`);
    }
    try {
      const kind = notRegular(await fh.stat());
      if (kind) throw new TraceReadError(`${path} is ${kind}, not a trace file`);
      const { header, cols, info } = await scan(fh, path);
      return new TraceReader(path, fh, header, cols, info);
    } catch (e) {
      await fh.close();
      throw e instanceof TraceReadError ? e : new TraceReadError((e as Error).message);
    }
  }

  get count(): number {
    return this.cols.count;
  }

  /** The event type of line `i` (`null` for a type this build does not know). */
  type(i: number): TraceEventType | null {
    const c = this.cols.type[i] & TYPE_MASK;
    return c === UNKNOWN ? null : TYPE_CODES[c];
  }

  /** A frame's direction, from the index. */
  frameDir(i: number): 'in' | 'out' {
    return this.cols.type[i] & OUT_FLAG ? 'out' : 'in';
  }

  /** Whether a frame or stderr line has no text (cut by the recording budget). */
  isTruncated(i: number): boolean {
    return (this.cols.type[i] & TRUNCATED_FLAG) !== 0;
  }

  t(i: number): number {
    return this.cols.t[i];
  }

  /** A frame's or stderr chunk's byte size (0 for other events). */
  bytes(i: number): number {
    return this.cols.bytes[i];
  }

  lineBytes(i: number): number {
    return this.cols.length[i];
  }

  /** Index of the last event of `type`, or -1 (a trace cut short has no `end`). */
  lastIndexOf(type: TraceEventType): number {
    const code = TYPE_CODES.indexOf(type);
    for (let i = this.cols.count - 1; i >= 0; i--) {
      if ((this.cols.type[i] & TYPE_MASK) === code) return i;
    }
    return -1;
  }

  /** Lines that cannot be used: found so at the scan (no event), or when read (cut, damaged,
   *  a field missing), and a cut last line. Each is counted once. */
  get skippedLines(): number {
    return this.info.badLines + this.unusable.size + (this.info.partialTailBytes > 0 ? 1 : 0);
  }

  /** Parses line `i` as an event; null (and counted) when it cannot be used. */
  private parse(i: number, text: string): TraceEvent | null {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const e = usableEvent(value);
    if (e === null || e.type !== this.type(i)) {
      this.unusable.add(i);
      return null;
    }
    return e;
  }

  /** Reads event `i` whole (a frame with a 30 MiB text is read whole); null when unusable. */
  async read(i: number): Promise<TraceEvent | null> {
    const buf = await this.readBytes(this.cols.offset[i], this.cols.length[i]);
    return this.parse(i, buf.toString('utf8'));
  }

  /** A frame's metadata without its text: only the line's first bytes are read. */
  async frameMeta(i: number): Promise<TraceFrameEvent | null> {
    const n = Math.min(this.cols.length[i], 1024);
    const head = (await this.readBytes(this.cols.offset[i], n)).toString('utf8');
    const cut = head.search(/,"(?:text|base64)":/);
    let e: TraceEvent | null;
    if (n === this.cols.length[i] && cut === -1) e = this.parse(i, head);
    else if (cut === -1) e = await this.read(i);
    else e = this.parse(i, `${head.slice(0, cut)}}`);
    return e?.type === 'frame' ? e : null;
  }

  /**
   * Events of the given types, in file order; unusable lines are skipped (and counted).
   * Consecutive lines are read together, up to BLOCK_BYTES a read: one read per event made a
   * report of a large trace wait on the file system for every line.
   */
  async *events(
    types?: readonly TraceEventType[],
    /** Further choice of lines by index (e.g. every k-th metrics sample), before any read. */
    keep?: (i: number) => boolean,
  ): AsyncGenerator<TraceEvent & { index: number }> {
    const codes = types ? new Set(types.map((t) => TYPE_CODES.indexOf(t))) : null;
    const { offset, length } = this.cols;
    const wanted = (i: number): boolean =>
      (codes === null || codes.has(this.cols.type[i] & TYPE_MASK)) &&
      (keep === undefined || keep(i));
    let i = 0;
    while (i < this.cols.count) {
      if (!wanted(i)) {
        i += 1;
        continue;
      }
      // A block: wanted lines from i on while they fit in BLOCK_BYTES from line i's start.
      const from = offset[i];
      const block: number[] = [i];
      let j = i + 1;
      for (; j < this.cols.count; j++) {
        if (offset[j] + length[j] - from > BLOCK_BYTES) break;
        if (wanted(j)) block.push(j);
      }
      const last = block[block.length - 1];
      const buf = await this.readBytes(from, offset[last] + length[last] - from);
      for (const k of block) {
        const at = offset[k] - from;
        const e = this.parse(k, buf.toString('utf8', at, at + length[k]));
        if (e) yield { ...e, index: k };
      }
      i = j; // every wanted line before j is in this block
    }
  }

  private async readBytes(offset: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await this.fh.read(buf, got, length - got, offset + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

/** What a file is when it is not a regular file (a trace is one), or null. */
function notRegular(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

interface LineSink {
  header: TraceHeader | null;
  cols: Columns;
  badLines: number;
}

async function scan(
  fh: FileHandle,
  path: string,
): Promise<{ header: TraceHeader; cols: Columns; info: TraceOpenInfo }> {
  const started = performance.now();
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  // The current line's first FULL_LINE_BYTES bytes (a fixed buffer: memory stays bounded).
  const line = Buffer.allocUnsafe(FULL_LINE_BYTES);
  let kept = 0;
  let lineLength = 0;
  let lineStart = 0;
  let fileOffset = 0;
  const sink: LineSink = { header: null, cols: new Columns(), badLines: 0 };
  for (;;) {
    const { bytesRead } = await fh.read(chunk, 0, CHUNK_BYTES, fileOffset);
    if (bytesRead === 0) break;
    const view = chunk.subarray(0, bytesRead);
    let i = 0;
    while (i < bytesRead) {
      const nl = view.indexOf(0x0a, i);
      const end = nl === -1 ? bytesRead : nl;
      if (nl !== -1 && lineLength === 0) {
        // A whole line inside this read (nearly all of them): looked at in place, no copy.
        const head = view.subarray(i, Math.min(end, i + FULL_LINE_BYTES));
        onLine(sink, path, fileOffset + i, end - i, head);
        lineStart = fileOffset + nl + 1;
        i = nl + 1;
        continue;
      }
      const take = Math.min(end - i, FULL_LINE_BYTES - kept);
      if (take > 0) view.copy(line, kept, i, i + take);
      kept += take;
      lineLength += end - i;
      // The header is the first line and far shorter: do not read on through a huge one.
      if (!sink.header && lineLength > FULL_LINE_BYTES)
        throw new TraceReadError(`${path}: its first line is over 1 MiB: not a pipescope trace`);
      if (end === bytesRead) break;
      onLine(sink, path, lineStart, lineLength, line.subarray(0, kept));
      lineStart = fileOffset + nl + 1;
      kept = 0;
      lineLength = 0;
      i = nl + 1;
    }
    fileOffset += bytesRead;
  }
  let partialTailBytes = 0;
  if (lineLength > 0) {
    // A last line without newline: an event if it parses whole, else a cut (counted).
    const whole = kept === lineLength ? tryParse(line.subarray(0, kept)) : undefined;
    if (whole !== undefined) onLine(sink, path, lineStart, lineLength, line.subarray(0, kept));
    else partialTailBytes = lineLength;
  }
  if (!sink.header) {
    if (fileOffset === 0) throw new TraceReadError(`${path} is empty, not a pipescope trace`);
    // One line and no newline: a header cut short, or something else altogether.
    const value = tryParse(line.subarray(0, kept));
    const h = value === undefined ? null : parseTraceHeader(value);
    if (typeof h === 'string') throw new TraceReadError(`${path}: ${h}`);
    if (h === null) {
      const text = line.subarray(0, Math.min(kept, 64)).toString('latin1');
      const why = /^\{"format":"pipescope-trace"/.test(text)
        ? 'its header line is cut short (no newline, not complete JSON)'
        : 'its first line is not JSON';
      throw new TraceReadError(`${path}: ${why}: not a pipescope trace`);
    }
    sink.header = h;
  }
  return {
    header: sink.header,
    cols: sink.cols,
    info: {
      fileBytes: fileOffset,
      badLines: sink.badLines,
      partialTailBytes,
      scanMs: performance.now() - started,
    },
  };
}

function onLine(sink: LineSink, path: string, offset: number, length: number, head: Buffer): void {
  if (!sink.header) {
    const value = length === head.length ? tryParse(head) : undefined;
    const h = parseTraceHeader(value);
    if (typeof h === 'string') throw new TraceReadError(`${path}: ${h}`);
    sink.header = h;
    return;
  }
  if (length === 0) return;
  const prefix = head.toString('latin1', 0, Math.min(head.length, PREFIX_BYTES));
  const m = PREFIX.exec(prefix);
  if (m) {
    let code = typeCode(m[2]);
    let bytes = 0;
    if (m[2] === 'frame' || m[2] === 'stderr') {
      const at = prefix.indexOf(',"bytes":');
      if (at !== -1) bytes = Number.parseInt(prefix.slice(at + 9, at + 25), 10) || 0;
      // Raw `"dir":"out"` / `"truncated":true` cannot occur inside a JSON string (its quotes
      // would be escaped), so finding them in the prefix is exact.
      if (prefix.includes('"truncated":true')) code |= TRUNCATED_FLAG;
      if (m[2] === 'frame' && prefix.includes('"dir":"out"')) code |= OUT_FLAG;
    }
    sink.cols.push(offset, length, code, Number(m[1]), bytes);
    return;
  }
  // Another writer's key order: parse lines we hold whole.
  const value = length === head.length ? tryParse(head) : undefined;
  if (value && typeof value === 'object' && 'type' in value && 't' in value) {
    const v = value as { type: unknown; t: unknown; bytes?: unknown; dir?: unknown };
    if (typeof v.type === 'string' && typeof v.t === 'number') {
      const truncated = (value as { truncated?: unknown }).truncated === true;
      const code =
        typeCode(v.type) | (v.dir === 'out' ? OUT_FLAG : 0) | (truncated ? TRUNCATED_FLAG : 0);
      sink.cols.push(offset, length, code, v.t, typeof v.bytes === 'number' ? v.bytes : 0);
      return;
    }
  }
  sink.badLines += 1;
}

function typeCode(type: string): number {
  return isTraceEventType(type) ? TYPE_CODES.indexOf(type) : UNKNOWN;
}

function tryParse(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
