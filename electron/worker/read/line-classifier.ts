/**
 * Line classifier: what one stdout line is (request / response / notification / batch /
 * invalid JSON-RPC / parse error / empty), from its bytes, without JSON.parse on the hot path.
 *
 * Owns: JSON scanners (WebAssembly, json-scan.ts) and a UTF-8 checker. Fed by: the transport
 * worker — a chunk's whole lines at once, split and scanned in one call (`classifyRegion`), or a
 * line in the pieces it arrived in (`begin` / `piece` / `end`) so a large frame is validated
 * without being joined — and by `classify` / `classifySpan` for one whole line.
 *
 * The answer equals classifyFrameByParse (JSON.parse, then classifyValue; differential property
 * tests hold them together); only the wording of parse-error problems of lines over
 * EXACT_MESSAGE_BYTES differs (byte positions instead of JSON.parse's). Lines under it that are
 * not JSON, and lines with a member longer than the scanner keeps, are given to JSON.parse.
 */
import { isUtf8 } from 'node:buffer';
import {
  type Classified,
  classifyFrameByParse,
  errorInfo,
  progressFields,
} from '../../wire/classify.js';
import type { LineRows } from '../../wire/columns.js';
import { type Span as Capture, FIELD, JsonScanner, type Scanned } from './json-scan.js';
import { LineBatch } from './line-batch.js';
import { Utf8Stream } from './utf8-stream.js';

/** Parse errors in lines up to this size get JSON.parse's own message (it is cheap there). */
const EXACT_MESSAGE_BYTES = 64 * 1024;
const PROBLEM_MAX_CHARS = 200;
const BAD = Symbol('bad id');

function text(b: Uint8Array, from: number, to: number): string {
  return Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('utf8');
}

function hasBackslash(c: Capture): boolean {
  const b = c.buf as Uint8Array;
  for (let i = c.start; i < c.end; i++) if (b[i] === 0x5c) return true;
  return false;
}

/** A captured value as JSON text. */
function json(c: Capture): unknown {
  return JSON.parse(text(c.buf as Uint8Array, c.start, c.end));
}

/** A captured JSON string value (quotes included) as a JS string. */
function decodeString(c: Capture): string {
  return hasBackslash(c) ? (json(c) as string) : text(c.buf as Uint8Array, c.start + 1, c.end - 1);
}

/** Method names decoded lately, by their bytes: a flood repeats a few, and a hit costs a compare
 *  of the name's bytes where decoding cost a Buffer view and a new string per frame. */
const METHOD_SLOTS = 16;
const METHOD_CACHE_MAX = 64;
const methodBytes: (Uint8Array | null)[] = new Array(METHOD_SLOTS).fill(null);
const methodNames: string[] = new Array(METHOD_SLOTS).fill('');

/** A captured method value (a JSON string, quotes included) as a JS string. */
function methodName(c: Capture): string {
  const b = c.buf as Uint8Array;
  const from = c.start + 1;
  const to = c.end - 1;
  const n = to - from;
  if (n > METHOD_CACHE_MAX) return decodeString(c);
  let h = n;
  for (let i = from; i < to; i++) {
    if (b[i] === 0x5c) return decodeString(c); // escapes: JSON.parse decodes them
    h = (Math.imul(h, 31) + b[i]) | 0;
  }
  const slot = h & (METHOD_SLOTS - 1);
  const known = methodBytes[slot];
  if (known !== null && known.length === n) {
    let i = 0;
    while (i < n && known[i] === b[from + i]) i++;
    if (i === n) return methodNames[slot];
  }
  const name = text(b, from, to);
  methodBytes[slot] = new Uint8Array(b.subarray(from, to)); // a copy: b is a chunk or scratch
  methodNames[slot] = name;
  return name;
}

/** A captured id value: string, finite number, null, or BAD (any other type, or not finite). */
function readId(c: Capture | null): string | number | null | typeof BAD {
  if (c === null) return BAD;
  const b = c.buf as Uint8Array;
  const first = b[c.start];
  if (first === 0x22) return decodeString(c);
  if (first === 0x6e) return null;
  if (first === 0x2d || (first >= 0x30 && first <= 0x39)) {
    if (c.end - c.start <= 15) {
      let n = 0;
      let i = c.start;
      for (; i < c.end; i++) {
        const d = b[i] - 0x30;
        if (d < 0 || d > 9) break;
        n = n * 10 + d;
      }
      if (i === c.end) return n;
    }
    const n = Number(
      Buffer.from(b.buffer, b.byteOffset + c.start, c.end - c.start).toString('latin1'),
    );
    return Number.isFinite(n) ? n : BAD;
  }
  return BAD;
}

function isJsonrpc20(c: Capture | null): boolean {
  if (c === null) return false;
  const b = c.buf as Uint8Array;
  const s = c.start;
  if (b[s] !== 0x22) return false;
  if (c.end - s === 5) {
    return b[s + 1] === 0x32 && b[s + 2] === 0x2e && b[s + 3] === 0x30 && b[s + 4] === 0x22;
  }
  return hasBackslash(c) && json(c) === '2.0';
}

const first = (c: Capture | null): number => (c === null ? -1 : (c.buf as Uint8Array)[c.start]);

function shorten(s: string): string {
  return s.length > PROBLEM_MAX_CHARS ? `${s.slice(0, PROBLEM_MAX_CHARS)}…` : s;
}

/** Members whose value the answer may depend on; over its cap (1 MiB) one sends the line to
 *  JSON.parse instead (`jsonrpc` has a 64-byte cap: longer, it cannot be "2.0"). `params`
 *  too, for a progress notification only (no other answer reads it). */
const READ_MEMBERS = [FIELD.id, FIELD.method, FIELD.error];

/**
 * Classifies a line the scanner found to be valid JSON (mirrors classifyValue). Null when a
 * member the answer depends on was longer than the scanner keeps: the caller then classifies
 * the whole line with JSON.parse (a hostile or odd line; exact all the same).
 */
function classifyScanned(sc: Scanned): Classified | null {
  if (sc.top === 'array') return { kind: 'batch' };
  if (sc.top !== 'object') return { kind: 'invalid', problem: 'JSON value is not an object' };
  if (!isJsonrpc20(sc.value(FIELD.jsonrpc))) {
    return { kind: 'invalid', problem: 'missing "jsonrpc": "2.0"' };
  }
  for (const f of READ_MEMBERS) if (sc.overCap(f)) return null;
  const hasId = sc.has(FIELD.id);
  const methodValue = sc.value(FIELD.method);
  if (methodValue !== null && first(methodValue) === 0x22) {
    const method = methodName(methodValue);
    const out: Classified = { kind: hasId ? 'request' : 'notification', method };
    if (hasId) {
      const id = readId(sc.value(FIELD.id));
      if (id === BAD || id === null) {
        return { kind: 'invalid', problem: 'request id is not a string or number' };
      }
      out.id = id;
    }
    if (method === 'notifications/progress') {
      if (sc.overCap(FIELD.params)) return null;
      const params = sc.value(FIELD.params);
      if (params !== null && first(params) === 0x7b) progressFields(out, json(params) as object);
    }
    return out;
  }
  if (hasId && (sc.has(FIELD.result) || sc.has(FIELD.error))) {
    const id = readId(sc.value(FIELD.id));
    if (id === BAD) return { kind: 'invalid', problem: 'response id has a bad type' };
    const out: Classified = { kind: 'response', id };
    if (sc.has(FIELD.error)) out.error = errorInfo(json(sc.value(FIELD.error) as Capture));
    return out;
  }
  return { kind: 'invalid', problem: 'neither a request, a notification nor a response' };
}

/** JSON.parse's answer for a whole line (the exact wording of its errors, or a member too
 *  long for the scanner to keep). */
function byParse(buf: Uint8Array, start: number, n: number): Classified {
  const line = Buffer.from(buf.buffer, buf.byteOffset + start, n);
  if (n > REPEATED_LINE_BYTES) return classifyFrameByParse(line);
  const key = line.toString('latin1'); // one char per byte: equal keys, equal bytes
  const seen = repeatedErrors.get(key);
  if (seen !== undefined) return seen;
  const c = classifyFrameByParse(line);
  if (c.kind === 'parse-error') {
    if (repeatedErrors.size >= REPEATED_LINES) repeatedErrors.clear();
    repeatedErrors.set(key, c);
  }
  return c;
}

/**
 * Parse errors of short lines, by their bytes: a server printing the same non-JSON line over
 * and over (`yes`, a banner per request) pays for JSON.parse's thrown SyntaxError once. Paid
 * each time, the throw held the worker so long that `yes` outran it many times over. (Shared
 * answers: nothing changes a Classified once made.)
 */
const REPEATED_LINE_BYTES = 256;
const REPEATED_LINES = 256;
const repeatedErrors = new Map<string, Classified>();

export class LineClassifier {
  /** The line arriving in pieces (begin / piece / end). */
  private readonly scanner = new JsonScanner();
  /** Whole lines (classify, classifySpan): apart, so they never disturb a line in pieces. */
  private readonly wholeScanner = new JsonScanner();
  private readonly utf8 = new Utf8Stream();
  private readonly batch = new LineBatch();

  /**
   * Splits and classifies the whole lines of chunk[from, to) (each ending in \n) in one pass —
   * the worker's small frames, framing included — and hands each to `each` in order with its
   * start and end in the chunk (one \r left out): `c` its classification, or null for a plain
   * response with the numeric id `id`; `over` >= 0 (c null too) when it is longer than `limit`:
   * its length without the \n. Returns false, having done nothing, when the chunk is too large
   * for one pass.
   *
   * With `plain` (and a chunk known to be UTF-8), consecutive plain responses go to it as runs
   * of rows instead — [r0, r1) of `rows`, read (startAt / endAt / idAt, or a run at a time with
   * runBytes / copyRun) before `plain` returns, never after — so a flood costs the caller a few
   * calls per chunk rather than a call per line.
   */
  classifyRegion(
    chunk: Uint8Array,
    from: number,
    to: number,
    limit: number,
    utf8Known: boolean,
    each: (start: number, end: number, c: Classified | null, id: number, over: number) => void,
    plain?: (rows: LineRows, r0: number, r1: number) => void,
  ): boolean {
    const b = this.batch;
    if (chunk.length > b.maxBytes) return false;
    const bulk = utf8Known ? plain : undefined;
    try {
      for (let at = from; at < to; ) {
        const { rows, stop } = b.split(chunk, at, to, limit);
        for (let r = 0; r < rows; r++) {
          if (bulk !== undefined) {
            const runEnd = b.plainRunEnd(r, rows);
            if (runEnd > r) {
              bulk(b, r, runEnd);
              r = runEnd - 1;
              continue;
            }
          }
          const valid = b.row(r);
          const start = b.lineStart();
          const end = b.lineEnd();
          const len = end - start;
          if (b.oversize()) {
            each(start, end, null, 0, b.rawLength());
            continue;
          }
          let c: Classified;
          if (len === 0) c = { kind: 'empty', problem: 'empty line' };
          else if (
            !utf8Known &&
            !isUtf8(new Uint8Array(chunk.buffer, chunk.byteOffset + start, len))
          ) {
            c = { kind: 'parse-error', problem: 'not valid UTF-8' };
          } else if (valid) {
            const id = b.plainId();
            if (id >= 0) {
              each(start, end, null, id, -1);
              continue;
            }
            c = classifyScanned(b) ?? byParse(chunk, start, len);
          } else {
            c = len <= EXACT_MESSAGE_BYTES ? byParse(chunk, start, len) : parseError(b.error());
          }
          each(start, end, c, 0, -1);
        }
        // Every run holds a whole line: stopping short would lose lines the framer counted.
        if (stop <= at) throw new Error(`classifyRegion: no progress at ${at} of [${from}, ${to})`);
        at = stop;
      }
    } finally {
      b.release();
    }
    return true;
  }

  /** Classifies a whole line (no \r\n). */
  classify(frame: Uint8Array): Classified {
    return this.classifySpan(frame, 0, frame.length, false);
  }

  /** Classifies the line buf[start, end); `utf8Known`: the caller checked a larger span holding
   *  it (one isUtf8 per chunk instead of one per small frame). */
  classifySpan(buf: Uint8Array, start: number, end: number, utf8Known: boolean): Classified {
    const n = end - start;
    if (n === 0) return { kind: 'empty', problem: 'empty line' };
    if (!utf8Known && !isUtf8(new Uint8Array(buf.buffer, buf.byteOffset + start, n))) {
      return { kind: 'parse-error', problem: 'not valid UTF-8' };
    }
    const sc = this.wholeScanner;
    sc.reset();
    if (sc.feed(buf, start, end) && sc.finish()) {
      return classifyScanned(sc) ?? byParse(buf, start, n);
    }
    return n <= EXACT_MESSAGE_BYTES ? byParse(buf, start, n) : parseError(sc.error);
  }

  /** A line starts arriving in pieces. */
  begin(): void {
    this.scanner.reset();
    this.utf8.reset();
  }

  /** The next piece of the line begun with `begin` (it may end with the line's \r).
   *  `utf8Known`: the piece is cut at line ends from a chunk found valid UTF-8 as a whole. */
  piece(p: Uint8Array, utf8Known = false): void {
    if (p.length === 0) return;
    const valid = utf8Known ? this.utf8.pushValid() : this.utf8.push(p);
    if (valid) this.scanner.feed(p, 0, p.length, true);
  }

  /**
   * The line ended after `frameBytes` bytes (its \r, if any, was fed but is not counted).
   * `whole` gives the line's bytes joined, for the rare answer that needs JSON.parse: the exact
   * wording of a parse error up to EXACT_MESSAGE_BYTES, or a member longer than the scanner
   * keeps. (The worker still holds a line's pieces at its end; the classifier does not.)
   */
  end(frameBytes: number, whole: () => Uint8Array): Classified {
    if (frameBytes === 0) return { kind: 'empty', problem: 'empty line' };
    if (!this.utf8.end()) return { kind: 'parse-error', problem: 'not valid UTF-8' };
    const sc = this.scanner;
    if (sc.finish()) return classifyScanned(sc) ?? byParse(whole(), 0, frameBytes);
    if (frameBytes <= EXACT_MESSAGE_BYTES) return byParse(whole(), 0, frameBytes);
    return parseError(sc.error);
  }
}

function parseError(scannerError: string | null): Classified {
  return { kind: 'parse-error', problem: shorten(scannerError ?? 'not JSON') };
}
