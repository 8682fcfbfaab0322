/**
 * JSON scanner: validates one line of bytes as JSON (RFC 8259, as strict as JSON.parse) without
 * building it, and keeps the bytes of the top-level members classification needs.
 *
 * Owns: the scan of the line in progress. The work is done by a small WebAssembly module
 * (source: electron/wasm/, built by `npm run build:wasm`); this is its JavaScript
 * face. Fed by: the line classifier, one piece at a time, so a 64 MiB line is validated while
 * it arrives and never joined, decoded or parsed (DESIGN.md "Engine contract").
 *
 * Why not JSON.parse: it needs one contiguous string (a join and a decode: three copies of a
 * large frame) and builds every value: ~0.7 µs for a 200-byte response, where the worker must
 * keep up with a pipe moving 1 GB/s. UTF-8 validity is checked apart (utf8-stream.ts).
 *
 * Instances: a module instance holds one line's state, so scanners borrow one from a per-thread
 * pool for the length of a line (a thread rarely has more than one line in progress; a test
 * may have thousands of scanners, and each wasm memory reserves address space).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Top-level members whose values classification reads. */
export const FIELD = { none: 0, jsonrpc: 1, id: 2, method: 3, result: 4, error: 5, params: 6 };

export type TopKind = 'object' | 'array' | 'scalar' | 'none';
const TOPS: readonly TopKind[] = ['none', 'object', 'array', 'scalar'];

/** A captured value: bytes [start, end) of `buf`. Read it at once: the scanner's instance goes
 *  back to the thread's pool when the line ends, and the next scan on this thread reuses it. */
export interface Span {
  buf: Uint8Array;
  start: number;
  end: number;
}

const MESSAGES = [
  '',
  'Unexpected token',
  'Unexpected non-whitespace character after JSON',
  "Expected ','",
  'Expected property name',
  "Expected ':'",
  'Bad control character in string literal',
  'Bad escaped character',
  'Bad Unicode escape',
  'No number after minus sign',
  'Unterminated fractional number',
  'Exponent part is missing a number',
  'Unexpected number',
  'Unexpected end of JSON input',
];
const E_EXPECTED_COMMA = 3;
const E_CONTROL = 6;
const E_END = 13;

interface Exports {
  memory: { buffer: ArrayBuffer };
  reset(): void;
  feed(p: number, n: number, streaming: number): number;
  finish(): number;
  splitScan(from: number, to: number, maxLen: number): number;
  splitStop(): number;
  input(): number;
  inputMax(): number;
  outAt(): number;
}

/** What classification reads of a scanned line (a JsonScanner, or one row of a LineBatch). */
export interface Scanned {
  readonly top: TopKind;
  has(field: number): boolean;
  overCap(field: number): boolean;
  value(field: number): Span | null;
}

// The project's lib has no WebAssembly types (no DOM lib here): the little used is typed here.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The built module: next to this file in dist/, or dist's twin when run from sources. */
function wasmBytes(): Uint8Array {
  const here = fileURLToPath(new URL('./json-scan.wasm', import.meta.url));
  const built = here.replace(/([\\/])electron([\\/])engine([\\/])/, '$1dist$1electron$2engine$3');
  for (const p of [here, built]) if (existsSync(p)) return readFileSync(p);
  throw new Error(`json-scan.wasm not found (looked at ${here}); run: npm run build:wasm`);
}

let compiled: object | null = null;

class Instance {
  readonly ex: Exports;
  readonly input: number;
  readonly inputMax: number;
  private u8: Uint8Array;
  private i32: Int32Array;

  constructor() {
    compiled ??= new Wasm.Module(wasmBytes());
    this.ex = new Wasm.Instance(compiled).exports as Exports;
    this.input = this.ex.input();
    this.inputMax = this.ex.inputMax();
    this.u8 = new Uint8Array(this.ex.memory.buffer);
    this.i32 = new Int32Array(this.ex.memory.buffer);
  }

  /** Views of the memory. Growing it (a deep container stack) detaches the old buffer, and
   *  views of a detached buffer read as empty: that is the cheap sign to make new ones. */
  bytes(): Uint8Array {
    if (this.u8.byteLength === 0) this.refresh();
    return this.u8;
  }

  slots(): Int32Array {
    if (this.i32.byteLength === 0) this.refresh();
    return this.i32;
  }

  private refresh(): void {
    this.u8 = new Uint8Array(this.ex.memory.buffer);
    this.i32 = new Int32Array(this.ex.memory.buffer);
  }
}

const pool: Instance[] = [];

function acquire(): Instance {
  return pool.pop() ?? new Instance();
}

function release(inst: Instance): void {
  pool.push(inst);
}

// RES slots (see the module): 0 top, 1 present bits, 2 error code, 3 position, 4 byte, 5 aux,
// then member f at 8 + 4f: start, length, over, owned.
const slotOf = (f: number, k: number): number => 8 + 4 * f + k;

function describe(c: number): string {
  return c >= 0x21 && c <= 0x7e ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16)}`;
}

function errorText(code: number, at: number, byte: number, aux: number): string {
  let what = MESSAGES[code] ?? 'Not JSON';
  if (code === E_EXPECTED_COMMA) what = `Expected ',' or '${aux === 1 ? '}' : ']'}'`;
  if (code !== E_END && code !== E_CONTROL && code !== 0) what += ` but found ${describe(byte)}`;
  return code === E_END ? what : `${what} at byte ${at}`;
}

export class JsonScanner implements Scanned {
  /** The instance scanning the current line (null between lines). */
  private inst: Instance | null = null;
  /** The instance the last line finished in: its results are read right after `finish`. */
  private results: Instance | null = null;
  private state: 'open' | 'failed' | 'done' = 'open';
  /** For error messages: what went wrong and where (byte offset in the line). */
  error: string | null = null;
  top: TopKind = 'none';
  private present = 0;

  reset(): void {
    if (this.inst !== null) this.letGo(this.inst);
    this.inst = null;
    this.results = null;
    this.state = 'open';
    this.error = null;
    this.top = 'none';
    this.present = 0;
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  private letGo(inst: Instance): void {
    release(inst);
  }

  /** Scans buf[start, end) as the next bytes of the line. Returns false once the line failed.
   *  `streaming`: more pieces of this line may follow (captured members are copied out). */
  feed(buf: Uint8Array, start = 0, end = buf.length, streaming = false): boolean {
    if (this.state !== 'open') return false;
    let inst = this.inst;
    if (inst === null) {
      inst = acquire();
      inst.ex.reset();
      this.inst = inst;
    }
    for (let at = start; at < end || at === start; ) {
      const n = Math.min(end - at, inst.inputMax);
      inst.bytes().set(new Uint8Array(buf.buffer, buf.byteOffset + at, n), inst.input);
      const more = streaming || at + n < end;
      if (inst.ex.feed(inst.input, n, more ? 1 : 0) === 0) {
        this.failLine();
        break;
      }
      at += n;
      if (n === 0) break;
    }
    return this.state === 'open';
  }

  /** The line ended: whether it was exactly one JSON value. */
  finish(): boolean {
    const inst = this.inst;
    if (this.state !== 'open' || inst === null) {
      if (this.state === 'open') {
        this.state = 'failed';
        this.error = 'Unexpected end of JSON input';
      }
      return false;
    }
    if (inst.ex.finish() === 0) {
      this.failLine();
      return false;
    }
    const s = inst.slots();
    this.top = TOPS[s[0]] ?? 'none';
    this.present = s[1];
    this.state = 'done';
    this.results = inst;
    this.inst = null;
    this.letGo(inst);
    return true;
  }

  private failLine(): void {
    const inst = this.inst as Instance;
    const s = inst.slots();
    this.error = errorText(s[2], s[3], s[4], s[5]);
    this.state = 'failed';
    this.inst = null;
    this.letGo(inst);
  }

  /** Whether the top-level member was present. */
  has(field: number): boolean {
    return (this.present & (1 << field)) !== 0;
  }

  /** Whether a member's value was longer than what is kept of it. */
  overCap(field: number): boolean {
    return this.has(field) && this.results !== null && this.results.slots()[slotOf(field, 2)] !== 0;
  }

  /** The captured bytes of a top-level member's value, or null (absent or over its cap). */
  value(field: number): Span | null {
    const r = this.results;
    if (r === null || !this.has(field)) return null;
    const s = r.slots();
    if (s[slotOf(field, 2)] !== 0) return null;
    const start = s[slotOf(field, 0)];
    const len = s[slotOf(field, 1)];
    if (len === 0) return null;
    return { buf: r.bytes(), start, end: start + len };
  }
}

/** i32 slots per result row (see splitScan in the module). */
const ROW = 24;

/**
 * Many whole lines of one chunk split and scanned in a single call into the module: the
 * transport worker's small frames (a pipe chunk holds ~300 responses of 200 bytes; a call each
 * would cost more in crossings than the scanning). After `split`, `row(k)` selects line k's
 * results (valid until the next `split` or `release`). Borrows an instance of its own from the
 * pool, apart from any line in pieces.
 */
export class LineBatch implements Scanned {
  /** The largest chunk `split` takes. */
  readonly maxBytes: number;
  /** The instance holding the last scan's rows (borrowed from the pool until `release`). */
  private inst: Instance | null = null;
  /** The memory as i32 slots, f64 slots and bytes, taken after each scan (the module may grow
   *  it). */
  s: Int32Array = new Int32Array(0);
  private f64: Float64Array = new Float64Array(0);
  u8: Uint8Array = new Uint8Array(0);
  /** Slot index of the selected row. */
  base = 0;
  private out = 0;
  /** The chunk whose bytes are in the borrowed instance's input now. */
  private loaded: Uint8Array | null = null;

  constructor() {
    const probe = acquire();
    this.maxBytes = probe.inputMax;
    release(probe);
  }

  /**
   * Splits chunk[from, to) — whole lines, each ending in \n — into lines and scans them, in one
   * call (chunk.length <= maxBytes). Returns the rows written (line k of the run is row k; at
   * most 32,768) and where it stopped, `to` once all is done. A line longer than `maxLen`
   * (one \r left out) is not scanned: `oversize()` is true for its row.
   */
  split(
    chunk: Uint8Array,
    from: number,
    to: number,
    maxLen: number,
  ): { rows: number; stop: number } {
    this.inst ??= acquire();
    const inst = this.inst;
    if (this.loaded !== chunk) {
      inst.bytes().set(chunk, inst.input);
      this.loaded = chunk;
    }
    const rows = inst.ex.splitScan(from, to, Math.min(maxLen, 0x7fffffff));
    this.views(inst);
    return { rows, stop: inst.ex.splitStop() };
  }

  private views(inst: Instance): void {
    this.s = inst.slots();
    this.u8 = inst.bytes();
    if (this.f64.buffer !== this.s.buffer) this.f64 = new Float64Array(this.s.buffer);
    this.out = inst.ex.outAt() >> 2;
  }

  /** Gives the instance back to the pool (the rows are no longer read). */
  release(): void {
    if (this.inst !== null) release(this.inst);
    this.inst = null;
    this.loaded = null;
  }

  /** Where the selected row's line starts and ends in its chunk (one \r left out). */
  lineStart(): number {
    return this.s[this.base + 20];
  }

  lineEnd(): number {
    return this.s[this.base + 21];
  }

  /** The selected line was over the length limit (not scanned); `rawLength()` is its length
   *  without the \n (a \r included). */
  oversize(): boolean {
    return this.s[this.base] === 2;
  }

  rawLength(): number {
    return this.s[this.base + 3];
  }

  /** The id of the selected line if it is a plain response (numeric id, plain "2.0", result,
   *  no error), else -1: the bulk of a flood, read without building anything. */
  plainId(): number {
    return this.f64[(this.base + 22) >> 1];
  }

  /** Whether line r is a plain response (valid JSON, within the limit, a numeric id): the bulk
   *  of a flood, taken a run at a time through startAt / endAt / idAt without selecting rows. */
  isPlain(r: number): boolean {
    const base = this.out + r * ROW;
    return this.s[base] === 1 && this.f64[(base + 22) >> 1] >= 0;
  }

  startAt(r: number): number {
    return this.s[this.out + r * ROW + 20];
  }

  endAt(r: number): number {
    return this.s[this.out + r * ROW + 21];
  }

  idAt(r: number): number {
    return this.f64[(this.out + r * ROW + 22) >> 1];
  }

  /** Selects line i's results; returns whether the line was valid JSON. */
  row(i: number): boolean {
    this.base = this.out + i * ROW;
    return this.s[this.base] === 1;
  }

  /** Why the selected line is not JSON. */
  error(): string {
    const s = this.s;
    const b = this.base;
    return errorText(s[b + 3], s[b + 4], s[b + 5], s[b + 6]);
  }

  get top(): TopKind {
    return TOPS[this.s[this.base + 1]] ?? 'none';
  }

  has(field: number): boolean {
    return (this.s[this.base + 2] & (1 << field)) !== 0;
  }

  overCap(field: number): boolean {
    return this.has(field) && this.s[this.base + 7 + 2 * field] === -1;
  }

  value(field: number): Span | null {
    if (!this.has(field)) return null;
    const len = this.s[this.base + 7 + 2 * field];
    if (len <= 0) return null;
    const start = this.s[this.base + 6 + 2 * field];
    return { buf: this.u8, start, end: start + len };
  }
}
