/**
 * JSON scanner: validates one line of bytes as JSON (RFC 8259, as strict as JSON.parse) without
 * building it, and keeps the bytes of the top-level members classification needs.
 *
 * Owns: the scan state of the line in progress (container stack, token state, captures).
 * Fed by: the line classifier, one piece at a time, so a 64 MiB line is validated while it
 * arrives and never has to be joined, decoded or parsed (DESIGN.md "Engine contract").
 *
 * Why not JSON.parse: it needs one contiguous string (a join and a decode: three copies of a
 * large frame) and builds every value; a 200-byte response costs ~0.8 µs that way, and the
 * worker must keep up with a pipe moving 1 GB/s. Long strings are skipped with SIMD
 * (string-skip.ts); UTF-8 validity is checked apart (utf8-stream.ts), so bytes >= 0x80 inside
 * strings pass here and are rejected outside them.
 */
import type { StringSkipper } from './string-skip.js';

// Token states.
const VALUE = 0; // a value must come
const VALUE_OR_CLOSE = 1; // after '['
const KEY_OR_CLOSE = 2; // after '{'
const KEY = 3; // after ',' in an object
const COLON = 4;
const AFTER = 5; // a value ended: ',' or a closer (or, at depth 0, only whitespace)
const STR = 6;
const ESC = 7;
const HEX = 8;
const N_MINUS = 9;
const N_ZERO = 10;
const N_INT = 11;
const N_DOT = 12;
const N_FRAC = 13;
const N_E = 14;
const N_ESIGN = 15;
const N_EXP = 16;
const LIT = 17;
const FAIL = 18;

const OBJ = 1;
const ARR = 2;

/** Top-level members whose values classification reads. */
export const FIELD = { none: 0, jsonrpc: 1, id: 2, method: 3, result: 4, error: 5, params: 6 };
const FIELDS = 7;
const FIELD_NAMES = ['', 'jsonrpc', 'id', 'method', 'result', 'error', 'params'];
/** Bytes kept of each member's value; `result` is only noted as present. */
const CAPTURE_MAX = [0, 64, 1 << 20, 1 << 20, 0, 1 << 20, 1 << 20];
/** Longest raw key that can still spell a member name ("\u006a\u0073…" is 6 bytes a char). */
const KEY_MAX = 64;
/** Strings scanned byte by byte in JS before the SIMD skipper takes over. */
const SHORT_RUN = 16;

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

export type TopKind = 'object' | 'array' | 'scalar' | 'none';

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function describe(c: number): string {
  return c >= 0x21 && c <= 0x7e ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16)}`;
}

/** A copy of buf[start, end) in memory of its own (Buffer#slice would be a view). */
function copyOf(buf: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(new Uint8Array(buf.buffer, buf.byteOffset + start, end - start));
  return out;
}

/**
 * The bytes of one captured value (or key). Within a line given whole they are kept as a span
 * of it (no copy, no view object: a Buffer view costs more than scanning 100 bytes). A line fed
 * in pieces has its captures copied when a piece ends (`own`): the worker transfers chunks to
 * main, and a piece's chunk may have left the thread before the line ends.
 */
class Capture {
  buf: Uint8Array | null = null;
  start = 0;
  end = 0;
  private parts: Uint8Array[] | null = null;
  private owned = false;
  length = 0;
  over = false;

  reset(): void {
    this.buf = null;
    this.parts = null;
    this.owned = false;
    this.length = 0;
    this.over = false;
  }

  /** Copies a span that still points into a caller's piece. */
  own(): void {
    if (this.buf === null || this.owned) return;
    this.buf = copyOf(this.buf, this.start, this.end);
    this.start = 0;
    this.end = this.buf.length;
    this.owned = true;
  }

  add(buf: Uint8Array, start: number, end: number, max: number): void {
    if (this.over) return;
    const n = end - start;
    if (this.length + n > max) {
      this.over = true;
      this.buf = null;
      this.parts = null;
      return;
    }
    this.length += n;
    if (this.buf === null && this.parts === null) {
      this.buf = buf;
      this.start = start;
      this.end = end;
      return;
    }
    if (this.parts === null && this.buf !== null) {
      this.parts = [this.owned ? this.buf : copyOf(this.buf, this.start, this.end)];
      this.buf = null;
    }
    this.parts?.push(copyOf(buf, start, end));
  }

  /** Joins a value that crossed pieces into one span. */
  settle(): void {
    if (this.parts === null) return;
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    this.parts = null;
    this.buf = out;
    this.owned = true;
    this.start = 0;
    this.end = out.length;
  }
}

export class JsonScanner {
  private state = VALUE;
  private stack = new Uint8Array(64);
  private depth = 0;
  /** Bytes of the line consumed before the current piece. */
  private consumed = 0;
  private hexLeft = 0;
  private lit: number[] = TRUE;
  private litPos = 0;
  private inKey = false;
  /** For error messages: what went wrong and where (byte offset in the line). */
  error: string | null = null;
  top: TopKind = 'none';

  // Captures of top-level members (depth 1 of a top-level object).
  private readonly captures = Array.from({ length: FIELDS }, () => new Capture());
  /** Bit f: the top-level member f was present (its value began). */
  private presentBits = 0;
  private readonly key = new Capture();
  private keyEscaped = false;
  /** The member whose key just ended (its value is next), and the one being captured now. */
  private pendingField = 0;
  private capField = 0;
  private capStart = 0;
  /** A depth-1 key is being read (from `keyStart` in the current piece). */
  private keyOpen = false;
  private keyStart = 0;

  constructor(private readonly skipper: StringSkipper) {}

  reset(): void {
    this.state = VALUE;
    this.depth = 0;
    this.consumed = 0;
    this.inKey = false;
    this.error = null;
    this.top = 'none';
    // Only what the last line touched needs clearing (most lines touch 2–3 captures).
    for (let f = 1, bits = this.presentBits; bits !== 0; f++) {
      if (bits & (1 << f)) {
        this.captures[f].reset();
        bits &= ~(1 << f);
      }
    }
    this.presentBits = 0;
    this.pendingField = 0;
    this.capField = 0;
    this.keyOpen = false;
    if (this.key.length > 0 || this.key.over) this.key.reset();
  }

  get failed(): boolean {
    return this.state === FAIL;
  }

  /** Copies what the captures hold of the piece just fed: call between pieces of a line. */
  ownCaptures(): void {
    for (let f = 1, bits = this.presentBits; bits !== 0; f++) {
      if (bits & (1 << f)) {
        this.captures[f].own();
        bits &= ~(1 << f);
      }
    }
    this.key.own();
  }

  /** Whether the top-level member was present. */
  has(field: number): boolean {
    return (this.presentBits & (1 << field)) !== 0;
  }

  /** The captured span of a top-level member's value, or null (absent or over its cap). */
  value(field: number): Capture | null {
    const c = this.captures[field];
    if ((this.presentBits & (1 << field)) === 0 || c.over || c.length === 0) return null;
    c.settle();
    return c;
  }

  /** Whether a member's value was longer than what is kept of it. */
  overCap(field: number): boolean {
    return this.captures[field].over;
  }

  private fail(what: string, at: number): void {
    this.state = FAIL;
    this.error = `${what} at byte ${this.consumed + at}`;
  }

  /** A member key (depth 1) ended at buf[end): which member is it? */
  private endKey(buf: Uint8Array, end: number): void {
    const k = this.key;
    this.keyOpen = false;
    if (k.length === 0 && !k.over) {
      this.pendingField = fieldOf(buf, this.keyStart, end, this.keyEscaped);
      return;
    }
    k.add(buf, this.keyStart, end, KEY_MAX);
    k.settle();
    this.pendingField =
      k.over || k.buf === null ? 0 : fieldOf(k.buf, k.start, k.end, this.keyEscaped);
    k.reset();
  }

  /** The value of the member being captured ended at buf[end). */
  private endCapture(buf: Uint8Array, end: number): void {
    const f = this.capField;
    this.capField = 0;
    if (CAPTURE_MAX[f] > 0) this.captures[f].add(buf, this.capStart, end, CAPTURE_MAX[f]);
  }

  /** Index of the first `"`, `\\` or control byte in buf[i, end): a JS loop for short runs,
   *  the SIMD skipper past SHORT_RUN bytes. */
  private run(buf: Uint8Array, i: number, end: number): number {
    const lim = end - i > SHORT_RUN ? i + SHORT_RUN : end;
    for (; i < lim; i++) {
      const d = buf[i];
      if (d === 0x22 || d === 0x5c || d < 0x20) return i;
    }
    return i < end ? this.skipper.skip(buf, i, end) : end;
  }

  /** Scans buf[start, end) as the next bytes of the line. Returns false once the line failed.
   *
   * The loop here handles structure (the states below STR) and plain strings and integers that
   * end inside the piece; everything else — escapes, strings or numbers cut by a piece boundary,
   * literals, fractions — goes through `slow`. Kept small on purpose: V8 inlines and optimizes a
   * small hot loop far better (a 200-byte response costs ~150 ns here). */
  feed(buf: Uint8Array, start = 0, end = buf.length): boolean {
    if (this.state === FAIL) return false;
    this.skipper.forget();
    this.consumed -= start;
    // A key or a captured value that began in an earlier piece goes on from this one's start.
    if (this.keyOpen) this.keyStart = start;
    if (this.capField !== 0) this.capStart = start;
    let state = this.state;
    let depth = this.depth;
    let i = start;
    while (i < end) {
      if (state >= STR) {
        this.state = state;
        this.depth = depth;
        i = this.slow(buf, i, end);
        if (i < 0) return false;
        state = this.state;
        continue;
      }
      const c = buf[i];
      if (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
        i += 1;
        continue;
      }
      if (state === VALUE || state === VALUE_OR_CLOSE) {
        if (state === VALUE_OR_CLOSE && c === 0x5d) {
          depth -= 1;
          if (depth === 1 && this.capField !== 0) this.endCapture(buf, i + 1);
          state = AFTER;
          i += 1;
          continue;
        }
        if (depth === 0) {
          this.top = c === 0x7b ? 'object' : c === 0x5b ? 'array' : 'scalar';
        } else if (depth === 1 && this.pendingField !== 0) {
          const f = this.pendingField;
          this.pendingField = 0;
          this.presentBits |= 1 << f;
          this.captures[f].reset();
          this.capField = f;
          this.capStart = i;
        }
        if (c === 0x22) {
          const j = this.run(buf, i + 1, end);
          if (j < end && buf[j] === 0x22) {
            // A plain string that ends in this piece: the common case.
            i = j + 1;
            if (depth === 1 && this.capField !== 0) this.endCapture(buf, i);
            state = AFTER;
          } else {
            state = STR;
            i += 1;
          }
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          if (depth === this.stack.length) this.growStack();
          this.stack[depth++] = c === 0x7b ? OBJ : ARR;
          state = c === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
          i += 1;
          continue;
        }
        if (c >= 0x31 && c <= 0x39) {
          let j = i + 1;
          while (j < end && buf[j] >= 0x30 && buf[j] <= 0x39) j++;
          i = j;
          const d = j < end ? buf[j] : 0x2e;
          if (d !== 0x2e && d !== 0x65 && d !== 0x45) {
            // An integer that ended in this piece.
            if (depth === 1 && this.capField !== 0) this.endCapture(buf, j);
            state = AFTER;
          } else {
            state = N_INT;
          }
          continue;
        }
        if (c === 0x2d) state = N_MINUS;
        else if (c === 0x30) state = N_ZERO;
        else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          this.lit = c === 0x74 ? TRUE : c === 0x66 ? FALSE : NULL;
          this.litPos = 1;
          state = LIT;
        } else {
          this.depth = depth;
          this.fail(`Unexpected token ${describe(c)}`, i);
          return false;
        }
        i += 1;
        continue;
      }
      if (state === AFTER) {
        if (depth === 0) {
          this.fail('Unexpected non-whitespace character after JSON', i);
          return false;
        }
        const inside = this.stack[depth - 1];
        if (c === 0x2c) {
          state = inside === OBJ ? KEY : VALUE;
        } else if ((c === 0x7d && inside === OBJ) || (c === 0x5d && inside === ARR)) {
          depth -= 1;
          if (depth === 1 && this.capField !== 0) this.endCapture(buf, i + 1);
        } else {
          this.depth = depth;
          this.fail(`Expected ',' or '${inside === OBJ ? '}' : ']'}' but found ${describe(c)}`, i);
          return false;
        }
        i += 1;
        continue;
      }
      if (state === COLON) {
        if (c !== 0x3a) {
          this.fail(`Expected ':' but found ${describe(c)}`, i);
          return false;
        }
        state = VALUE;
        i += 1;
        continue;
      }
      // KEY or KEY_OR_CLOSE
      if (c === 0x22) {
        // Fast path for compact members — "key":"text", "key":123, "key":{ or "key":[ — one
        // after another without going round the loop per token. Anything else (whitespace,
        // escapes, a piece boundary, other values) leaves to the general states below.
        let j = this.run(buf, i + 1, end);
        let handled = false;
        while (j < end && buf[j] === 0x22) {
          handled = true;
          if (depth === 1) this.pendingField = fieldOf(buf, i + 1, j, false);
          let k = j + 1;
          if (k >= end || buf[k] !== 0x3a) {
            i = k;
            state = COLON;
            break;
          }
          k += 1;
          const v = k < end ? buf[k] : 0;
          const plain = v === 0x22 || (v >= 0x31 && v <= 0x39) || v === 0x7b || v === 0x5b;
          if (!plain) {
            i = k;
            state = VALUE;
            break;
          }
          if (depth === 1 && this.pendingField !== 0) {
            const f = this.pendingField;
            this.pendingField = 0;
            this.presentBits |= 1 << f;
            this.captures[f].reset();
            this.capField = f;
            this.capStart = k;
          }
          if (v === 0x7b || v === 0x5b) {
            if (depth === this.stack.length) this.growStack();
            this.stack[depth++] = v === 0x7b ? OBJ : ARR;
            state = v === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
            i = k + 1;
            break;
          }
          if (v === 0x22) {
            const q = this.run(buf, k + 1, end);
            if (q >= end || buf[q] !== 0x22) {
              i = k + 1;
              state = STR;
              break;
            }
            k = q + 1;
          } else {
            let q = k + 1;
            while (q < end && buf[q] >= 0x30 && buf[q] <= 0x39) q++;
            const d = q < end ? buf[q] : 0x2e;
            if (d === 0x2e || d === 0x65 || d === 0x45) {
              i = q;
              state = N_INT;
              break;
            }
            k = q;
          }
          if (depth === 1 && this.capField !== 0) this.endCapture(buf, k);
          // The value ended: on to the next member if a comma and a quote follow.
          if (k + 1 < end && buf[k] === 0x2c && buf[k + 1] === 0x22) {
            i = k + 1;
            j = this.run(buf, i + 1, end);
            handled = false;
            continue;
          }
          i = k;
          state = AFTER;
          break;
        }
        if (!handled) {
          // The key at i did not end as a plain key in this piece: the general string states.
          state = KEY;
          this.inKey = true;
          if (depth === 1) {
            this.keyOpen = true;
            this.keyStart = i + 1;
            this.keyEscaped = false;
          }
          state = STR;
          i += 1;
        }
        continue;
      }
      if (c === 0x7d && state === KEY_OR_CLOSE) {
        depth -= 1;
        if (depth === 1 && this.capField !== 0) this.endCapture(buf, i + 1);
        state = AFTER;
        i += 1;
        continue;
      }
      this.depth = depth;
      this.fail(`Expected property name but found ${describe(c)}`, i);
      return false;
    }
    // The piece ended inside a key or a captured value: keep what arrived so far.
    if (this.keyOpen) this.key.add(buf, this.keyStart, end, KEY_MAX);
    if (this.capField !== 0) {
      const f = this.capField;
      if (CAPTURE_MAX[f] > 0) this.captures[f].add(buf, this.capStart, end, CAPTURE_MAX[f]);
    }
    this.state = state;
    this.depth = depth;
    this.consumed += end;
    return true;
  }

  private growStack(): void {
    const bigger = new Uint8Array(this.stack.length * 2);
    bigger.set(this.stack);
    this.stack = bigger;
  }

  /** The states past STR: strings with escapes or cut by a piece, literals, numbers that are
   *  not plain integers. Runs until the state is a structural one again (returns where it
   *  stopped) or the piece ends; -1 when the line failed. Uses and updates this.state. */
  private slow(buf: Uint8Array, i: number, end: number): number {
    let state = this.state;
    const depth = this.depth;
    while (i < end && state >= STR) {
      const c = buf[i];
      switch (state) {
        case STR: {
          const j = this.run(buf, i, end);
          if (j === end) {
            i = end;
            continue;
          }
          const d = buf[j];
          i = j + 1;
          if (d === 0x22) {
            if (this.inKey) {
              this.inKey = false;
              if (depth === 1) this.endKey(buf, j);
              state = COLON;
            } else {
              if (depth === 1 && this.capField !== 0) this.endCapture(buf, i);
              state = AFTER;
            }
          } else if (d === 0x5c) {
            if (this.inKey) this.keyEscaped = true;
            state = ESC;
          } else {
            this.fail('Bad control character in string literal', j);
            return -1;
          }
          continue;
        }
        case ESC:
          if (c === 0x75) {
            this.hexLeft = 4;
            state = HEX;
          } else if (
            c === 0x22 ||
            c === 0x5c ||
            c === 0x2f ||
            c === 0x62 ||
            c === 0x66 ||
            c === 0x6e ||
            c === 0x72 ||
            c === 0x74
          ) {
            state = STR;
          } else {
            this.fail('Bad escaped character', i);
            return -1;
          }
          break;
        case HEX:
          if (!isHex(c)) {
            this.fail('Bad Unicode escape', i);
            return -1;
          }
          if (--this.hexLeft === 0) state = STR;
          break;
        case LIT:
          if (c !== this.lit[this.litPos]) {
            this.fail(`Unexpected token ${describe(c)}`, i);
            return -1;
          }
          if (++this.litPos === this.lit.length) {
            if (depth === 1 && this.capField !== 0) this.endCapture(buf, i + 1);
            state = AFTER;
          }
          break;
        case N_MINUS:
          if (c === 0x30) state = N_ZERO;
          else if (c >= 0x31 && c <= 0x39) state = N_INT;
          else {
            this.fail('No number after minus sign', i);
            return -1;
          }
          break;
        case N_DOT:
          if (!isDigit(c)) {
            this.fail('Unterminated fractional number', i);
            return -1;
          }
          state = N_FRAC;
          break;
        case N_E:
          if (c === 0x2b || c === 0x2d) state = N_ESIGN;
          else if (isDigit(c)) state = N_EXP;
          else {
            this.fail('Exponent part is missing a number', i);
            return -1;
          }
          break;
        case N_ESIGN:
          if (!isDigit(c)) {
            this.fail('Exponent part is missing a number', i);
            return -1;
          }
          state = N_EXP;
          break;
        default: {
          // N_ZERO, N_INT, N_FRAC, N_EXP: a number that may go on.
          if (isDigit(c) && state !== N_ZERO) break;
          if (c === 0x2e && (state === N_ZERO || state === N_INT)) {
            state = N_DOT;
            break;
          }
          if ((c === 0x65 || c === 0x45) && state !== N_EXP) {
            state = N_E;
            break;
          }
          if (isDigit(c)) {
            // "01": JSON numbers have no leading zeros.
            this.fail('Unexpected number', i);
            return -1;
          }
          // The number ended before this byte: the structural loop looks at the byte again.
          if (depth === 1 && this.capField !== 0) this.endCapture(buf, i);
          this.state = AFTER;
          return i;
        }
      }
      i += 1;
    }
    this.state = state;
    return i;
  }

  /** The line ended: whether it was exactly one JSON value. */
  finish(): boolean {
    const s = this.state;
    if (s === FAIL) return false;
    if (this.depth === 0 && (s === N_ZERO || s === N_INT || s === N_FRAC || s === N_EXP)) {
      this.state = AFTER;
      return true;
    }
    if (s === AFTER && this.depth === 0) return true;
    this.state = FAIL;
    this.error = 'Unexpected end of JSON input';
    return false;
  }
}

export type { Capture };

/** Which member a top-level key names (the key's raw bytes buf[start, end), no quotes). */
function fieldOf(buf: Uint8Array, start: number, end: number, escaped: boolean): number {
  const n = end - start;
  if (!escaped) {
    if (n < 2 || n > 7) return 0;
    // First byte, then length, then the rest: one or two compares for most keys.
    switch (buf[start]) {
      case 0x6a: // j
        return n === 7 && same(buf, start, 'jsonrpc') ? FIELD.jsonrpc : 0;
      case 0x69: // i
        return n === 2 && buf[start + 1] === 0x64 ? FIELD.id : 0;
      case 0x6d: // m
        return n === 6 && same(buf, start, 'method') ? FIELD.method : 0;
      case 0x72: // r
        return n === 6 && same(buf, start, 'result') ? FIELD.result : 0;
      case 0x65: // e
        return n === 5 && same(buf, start, 'error') ? FIELD.error : 0;
      case 0x70: // p
        return n === 6 && same(buf, start, 'params') ? FIELD.params : 0;
      default:
        return 0;
    }
  }
  let name: string;
  try {
    name = JSON.parse(`"${Buffer.from(buf.buffer, buf.byteOffset + start, n).toString()}"`);
  } catch {
    return 0;
  }
  return Math.max(0, FIELD_NAMES.indexOf(name));
}

function same(buf: Uint8Array, start: number, name: string): boolean {
  for (let i = 1; i < name.length; i++) if (buf[start + i] !== name.charCodeAt(i)) return false;
  return true;
}
