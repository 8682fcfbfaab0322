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
 * large frame) and builds every value, where the worker must keep up with a pipe moving about
 * a gigabyte a second. UTF-8 validity is checked apart (utf8-stream.ts).
 *
 * Instances: a module instance holds one line's state, so scanners borrow one from a per-thread
 * pool for the length of a line (a thread rarely has more than one line in progress; a test
 * may have thousands of scanners, and each wasm memory reserves address space). A chunk's
 * whole lines are scanned in one call by line-batch.ts, on an instance of the same pool.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Top-level members whose values classification reads. */
export const FIELD = { none: 0, jsonrpc: 1, id: 2, method: 3, result: 4, error: 5, params: 6 };

export type TopKind = 'object' | 'array' | 'scalar' | 'none';
export const TOPS: readonly TopKind[] = ['none', 'object', 'array', 'scalar'];

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
  plainRunEnd(r: number, rows: number): number;
  runBytes(r0: number, r1: number): number;
  runLargest(): number;
  runColumns(r0: number, r1: number, offsetDelta: number, base: number, t: number): number;
  input(): number;
  inputMax(): number;
  outAt(): number;
  /** Line templates (electron/wasm/template.ts) on or off, and lines they answered since. */
  setTemplates(on: number): void;
  templateLines(): number;
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
  // From sources: the same place under dist/ (…/electron/worker/read → …/dist/electron/…).
  const at = here.lastIndexOf(`${path.sep}electron${path.sep}`);
  const built = `${here.slice(0, at)}${path.sep}dist${here.slice(at)}`;
  for (const p of [here, built]) if (existsSync(p)) return readFileSync(p);
  throw new Error(`json-scan.wasm not found (looked at ${here}); run: npm run build:wasm`);
}

let compiled: object | null = null;

/** One instance of the module: its exports and views of its memory. */
export class Instance {
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

export function acquire(): Instance {
  return pool.pop() ?? new Instance();
}

export function release(inst: Instance): void {
  pool.push(inst);
}

// RES slots (see the module): 0 top, 1 present bits, 2 error code, 3 position, 4 byte, 5 aux,
// then member f at 8 + 4f: start, length, over, owned.
const slotOf = (f: number, k: number): number => 8 + 4 * f + k;

function describe(c: number): string {
  return c >= 0x21 && c <= 0x7e ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16)}`;
}

export function errorText(code: number, at: number, byte: number, aux: number): string {
  let what = MESSAGES[code] ?? 'Not JSON';
  if (code === E_EXPECTED_COMMA) what = `Expected ',' or '${aux === 1 ? '}' : ']'}'`;
  if (code !== E_END && code !== E_CONTROL && code !== 0) what += ` but found ${describe(byte)}`;
  return code === E_END ? what : `${what} at byte ${at}`;
}

/**
 * Copies src[at, at + n) into the module's memory at `to`. From shared memory (a slab the
 * worker reads long lines into), with Buffer's `fill`, one memcpy in C++: a typed array's `set`
 * copies shared memory with relaxed loads, several times slower (most of a long line's scan
 * in profiles).
 */
function copyIn(mem: Uint8Array, to: number, src: Uint8Array, at: number, n: number): void {
  if (n === 0) return;
  const from = src.byteOffset + at;
  if (src.buffer instanceof SharedArrayBuffer) {
    Buffer.from(mem.buffer, mem.byteOffset + to, n).fill(new Uint8Array(src.buffer, from, n));
  } else mem.set(new Uint8Array(src.buffer, from, n), to);
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
      copyIn(inst.bytes(), inst.input, buf, at, n);
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
