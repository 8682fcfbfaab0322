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
import { type FileHandle, open } from 'node:fs/promises';
import {
  isTraceEventType,
  parseTraceHeader,
  TRACE_EVENT_TYPES,
  type TraceEvent,
  type TraceEventType,
  type TraceFrameEvent,
  type TraceHeader,
} from '../../../shared/trace-format.js';

export class TraceReadError extends Error {}

const CHUNK_BYTES = 1024 * 1024;
/** Lines up to this size are kept whole during the scan (for the header and the fallback). */
const FULL_LINE_BYTES = 1024 * 1024;
/** The index reads `t`, `type` and `bytes` from this many first bytes of a line. */
const PREFIX_BYTES = 1024;
const PREFIX = /^\{"t":(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?),"type":"([a-z]+)"/;
const BYTES_FIELD = /,"bytes":(\d+)[,}]/;

/** Index codes of event types: their position in the format's own list. */
const TYPE_CODES: readonly TraceEventType[] = TRACE_EVENT_TYPES;
const UNKNOWN = 0x1f;
/** Flag bits in the type column, next to the 5-bit type code. */
const TYPE_MASK = 0x1f;
const OUT_FLAG = 0x40;
const TRUNCATED_FLAG = 0x20;

/** Growable typed columns: 25 bytes a line, whatever the line's size. */
class Columns {
  offset = new Float64Array(1024);
  t = new Float64Array(1024);
  length = new Uint32Array(1024);
  bytes = new Uint32Array(1024);
  type = new Uint8Array(1024);
  count = 0;

  push(offset: number, length: number, type: number, t: number, bytes: number): void {
    if (this.count === this.offset.length) this.grow();
    const i = this.count++;
    this.offset[i] = offset;
    this.length[i] = Math.min(length, 0xffffffff);
    this.type[i] = type;
    this.t[i] = t;
    this.bytes[i] = Math.min(bytes, 0xffffffff);
  }

  private grow(): void {
    const n = this.offset.length * 2;
    const g = <T extends Float64Array | Uint32Array | Uint8Array>(
      a: T,
      make: (n: number) => T,
    ): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.offset = g(this.offset, (k) => new Float64Array(k));
    this.t = g(this.t, (k) => new Float64Array(k));
    this.length = g(this.length, (k) => new Uint32Array(k));
    this.bytes = g(this.bytes, (k) => new Uint32Array(k));
    this.type = g(this.type, (k) => new Uint8Array(k));
  }
}

export interface TraceOpenInfo {
  /** Bytes of the file. */
  fileBytes: number;
  /** Lines that could not be read as events (counted, skipped). */
  badLines: number;
  /** Bytes after the last newline (a trace cut mid-line, e.g. by a crash). */
  partialTailBytes: number;
  scanMs: number;
}

export class TraceReader {
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
      fh = await open(path, 'r');
    } catch (e) {
      throw new TraceReadError(`cannot read ${path}: ${(e as Error).message}`);
    }
    try {
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

  /** Reads and parses event `i` whole (a frame with a 30 MiB text is read whole). */
  async read(i: number): Promise<TraceEvent> {
    const buf = await this.readBytes(this.cols.offset[i], this.cols.length[i]);
    return JSON.parse(buf.toString('utf8')) as TraceEvent;
  }

  /** A frame's metadata without its text: only the line's first bytes are read. */
  async frameMeta(i: number): Promise<TraceFrameEvent> {
    const n = Math.min(this.cols.length[i], 1024);
    const head = (await this.readBytes(this.cols.offset[i], n)).toString('utf8');
    const cut = head.search(/,"(?:text|base64)":/);
    if (n === this.cols.length[i] && cut === -1) return JSON.parse(head) as TraceFrameEvent;
    if (cut === -1) return (await this.read(i)) as TraceFrameEvent;
    return JSON.parse(`${head.slice(0, cut)}}`) as TraceFrameEvent;
  }

  /** Events of the given types, in file order, read one line at a time. */
  async *events(types?: readonly TraceEventType[]): AsyncGenerator<TraceEvent & { index: number }> {
    const codes = types ? new Set(types.map((t) => TYPE_CODES.indexOf(t))) : null;
    for (let i = 0; i < this.cols.count; i++) {
      if (codes && !codes.has(this.cols.type[i] & TYPE_MASK)) continue;
      yield { ...(await this.read(i)), index: i };
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
      const take = Math.min(end - i, FULL_LINE_BYTES - kept);
      if (take > 0) view.copy(line, kept, i, i + take);
      kept += take;
      lineLength += end - i;
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
  if (!sink.header) throw new TraceReadError(`${path} is empty, not a pipescope trace`);
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
    const sized = m[2] === 'frame' || m[2] === 'stderr';
    const bytes = sized ? Number(BYTES_FIELD.exec(prefix)?.[1] ?? 0) : 0;
    // Raw `"dir":"out"` / `"truncated":true` cannot occur inside a JSON string (its quotes
    // would be escaped), so finding them in the prefix is exact.
    let code = typeCode(m[2]);
    if (sized && prefix.includes('"truncated":true')) code |= TRUNCATED_FLAG;
    if (m[2] === 'frame' && prefix.includes('"dir":"out"')) code |= OUT_FLAG;
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
