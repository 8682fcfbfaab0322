/**
 * JSON scanner in AssemblyScript (compiled to WebAssembly by `npm run build:wasm`; loaded by
 * electron/worker/read/json-scan.ts). Validates one line of bytes as JSON, as strictly as JSON.parse,
 * without building anything, and notes where the top-level members classification needs lie.
 *
 * Why WebAssembly: the transport worker must keep up with a pipe moving about a gigabyte a
 * second. The same state machine in JavaScript was several times slower once optimized, and
 * slower still before V8 had optimized it (a fresh worker per session); here it is fast from
 * the first line, strings skipped 16 bytes at a time with SIMD.
 *
 * Resumable: a line may be fed in pieces (a 64 MiB frame arrives in 64 KiB chunks) and the state
 * carries over. The caller copies each piece into INPUT; captured members that a piece does not
 * finish, or that must outlive it (`streaming`), are copied into areas of their own.
 *
 * Memory (layout.ts): RES results (i32 slots), KEYBUF a key cut by a piece boundary, CAPS one
 * area per member (captures.ts), INPUT the piece being fed, STACK one bit per open container
 * (grown). The module's entry is index.ts; lines.ts runs this machine over a chunk's lines in
 * one call; keys.ts notes which member a key names; errors.ts has the error codes; bytes.ts has
 * its byte tests.
 * UTF-8 validity is checked by the caller (node:buffer isUtf8): bytes >= 0x80 pass inside
 * strings here and are errors outside them.
 */

import { isHex, isWs, skip } from './bytes';
import { capBegin, endCapture, pieceEnds, pieceStarts, resetCaptures } from './captures';
import * as E from './errors';
import * as key from './keys';
import {
  F_ID,
  F_JSONRPC,
  INPUT,
  INPUT_MAX,
  R_ERR,
  R_ERR_AUX,
  R_ERR_BYTE,
  R_ERR_POS,
  R_PRESENT,
  R_TOP,
  rpcPrefix,
  STACK,
  slot,
} from './layout';

// Token states.
const VALUE: u32 = 0;
const VALUE_OR_CLOSE: u32 = 1;
const KEY_OR_CLOSE: u32 = 2;
const KEY: u32 = 3;
const COLON: u32 = 4;
const AFTER: u32 = 5;
const STR: u32 = 6;
const ESC: u32 = 7;
const HEX: u32 = 8;
const N_MINUS: u32 = 9;
const N_ZERO: u32 = 10;
const N_INT: u32 = 11;
const N_DOT: u32 = 12;
const N_FRAC: u32 = 13;
const N_E: u32 = 14;
const N_ESIGN: u32 = 15;
const N_EXP: u32 = 16;
const LIT: u32 = 17;
const FAIL: u32 = 18;

let state: u32 = VALUE;
let depth: u32 = 0;
let stackBits: u32 = 0; // capacity of STACK in bits
let consumed: u32 = 0; // line bytes before the current piece
let hexLeft: u32 = 0;
let lit: u32 = 0; // expected literal as 4 bytes (little-endian), and its length
let litLen: u32 = 0;
let litPos: u32 = 0;

export function reset(): void {
  state = VALUE;
  depth = 0;
  consumed = 0;
  key.reset();
  resetCaptures();
  store<i32>(slot(R_TOP), 0);
  store<i32>(slot(R_PRESENT), 0);
  store<i32>(slot(R_ERR), 0);
}

function fail(code: i32, p: u32, start: u32, c: u32, aux: i32): u32 {
  state = FAIL;
  store<i32>(slot(R_ERR), code);
  store<i32>(slot(R_ERR_POS), <i32>(consumed + p - start));
  store<i32>(slot(R_ERR_BYTE), <i32>c);
  store<i32>(slot(R_ERR_AUX), aux);
  return 0;
}

function push(kind: u32): void {
  if (depth === stackBits) {
    // Grow the bit stack by a page (512 Ki levels) at a time.
    memory.grow(1);
    stackBits += 65536 * 8;
  }
  const at = STACK + (depth >> 3);
  const bit: u32 = (<u32>1) << (depth & 7);
  const old: u32 = load<u8>(at);
  store<u8>(at, kind === 1 ? old | bit : old & ~bit);
  depth++;
}

/** 1: the innermost open container is an object; 0: an array. */
function inside(): u32 {
  const d = depth - 1;
  return (<u32>load<u8>(STACK + (d >> 3)) >> (d & 7)) & 1;
}

// --- the machine --------------------------------------------------------------------------------

/**
 * Scans [p, p + n) (inside INPUT) as the next bytes of the line. Returns 1 while the line is
 * still valid, 0 once it failed. `streaming`: more pieces may follow, so every capture is
 * copied out of the piece before returning.
 */
export function feed(p: u32, n: u32, streaming: bool): u32 {
  if (state === FAIL) return 0;
  const start = p;
  const end = p + n;
  key.pieceStarts(p);
  pieceStarts(p);
  let s = state;
  if (s === VALUE && depth === 0 && p + 22 <= end && rpcPrefix(p)) {
    // `{"jsonrpc":"2.0","id":` — how nearly every message begins — in one step, leaving the
    // machine exactly where these 22 bytes one by one would: an object open at depth 1, the
    // jsonrpc member captured, the id member's value next.
    store<i32>(slot(R_TOP), 1);
    push(1);
    capBegin(F_JSONRPC, p + 11);
    endCapture(p + 16);
    key.nextField(F_ID);
    p += 22;
  }
  while (p < end) {
    const c = <u32>load<u8>(p);
    switch (s) {
      case STR: {
        const j = skip(p, end);
        if (j === end) {
          p = end;
          continue;
        }
        const d = <u32>load<u8>(j);
        p = j + 1;
        if (d === 0x22) {
          if (key.inKey) {
            key.end(j, depth === 1);
            s = COLON;
          } else {
            if (depth === 1) endCapture(p);
            s = AFTER;
          }
        } else if (d === 0x5c) {
          if (key.inKey) key.escapes();
          s = ESC;
        } else {
          return fail(E.CONTROL, j, start, d, 0);
        }
        continue;
      }
      case VALUE_OR_CLOSE: {
        if (isWs(c)) break;
        if (c === 0x5d) {
          depth--;
          if (depth === 1) endCapture(p + 1);
          s = AFTER;
          break;
        }
        s = VALUE;
        continue;
      }
      case VALUE: {
        if (isWs(c)) break;
        if (depth === 0) {
          store<i32>(slot(R_TOP), c === 0x7b ? 1 : c === 0x5b ? 2 : 3);
        } else if (depth === 1 && key.pendingField !== 0) {
          capBegin(key.pendingField, p);
          key.nextField(0);
        }
        if (c === 0x22) {
          // A plain string that ends in this piece: the common case, in one step.
          const j = skip(p + 1, end);
          if (j < end && load<u8>(j) === 0x22) {
            p = j + 1;
            if (depth === 1) endCapture(p);
            s = AFTER;
            continue;
          }
          s = STR;
        } else if (c === 0x7b) {
          push(1);
          s = KEY_OR_CLOSE;
        } else if (c === 0x5b) {
          push(0);
          s = VALUE_OR_CLOSE;
        } else if (c - 0x31 < 9) {
          let j = p + 1;
          while (j < end && <u32>load<u8>(j) - 0x30 < 10) j++;
          p = j;
          // An integer followed by what cannot go on a number (`,` `}` `]` space…) ended here.
          if (j < end) {
            const d = <u32>load<u8>(j);
            if (d !== 0x2e && (d | 0x20) !== 0x65) {
              if (depth === 1) endCapture(j);
              s = AFTER;
              continue;
            }
          }
          s = N_INT;
          continue;
        } else if (c === 0x2d) {
          s = N_MINUS;
        } else if (c === 0x30) {
          s = N_ZERO;
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          // true / false / null: compared one byte at a time (a piece may cut them).
          lit = c === 0x74 ? 0x65757274 : c === 0x66 ? 0x736c6166 : 0x6c6c756e;
          litLen = c === 0x66 ? 5 : 4;
          litPos = 1;
          s = LIT;
        } else {
          return fail(E.TOKEN, p, start, c, 0);
        }
        break;
      }
      case KEY_OR_CLOSE:
      case KEY: {
        if (isWs(c)) break;
        if (c === 0x22) {
          const next = key.plain(p, end, depth === 1);
          if (next !== 0) {
            p = next;
            s = key.colonTaken ? VALUE : COLON;
            continue;
          }
          key.begins(p + 1, depth === 1);
          s = STR;
          break;
        }
        if (c === 0x7d && s === KEY_OR_CLOSE) {
          depth--;
          if (depth === 1) endCapture(p + 1);
          s = AFTER;
          break;
        }
        return fail(E.PROPERTY, p, start, c, 0);
      }
      case COLON: {
        if (isWs(c)) break;
        if (c !== 0x3a) return fail(E.COLON, p, start, c, 0);
        s = VALUE;
        break;
      }
      case AFTER: {
        if (isWs(c)) break;
        if (depth === 0) return fail(E.AFTER_JSON, p, start, c, 0);
        const obj = inside();
        if (c === 0x2c) {
          if (obj === 0) {
            s = VALUE;
            break;
          }
          // `,"key":` — the usual next member — in one step when the key is plain and whole here.
          const q = p + 1;
          if (q < end && load<u8>(q) === 0x22) {
            const next = key.plain(q, end, depth === 1);
            if (next !== 0) {
              p = next;
              s = key.colonTaken ? VALUE : COLON;
              continue;
            }
          }
          s = KEY;
          break;
        }
        if ((c === 0x7d && obj === 1) || (c === 0x5d && obj === 0)) {
          depth--;
          if (depth === 1) endCapture(p + 1);
          break;
        }
        return fail(E.EXPECTED_COMMA, p, start, c, <i32>obj);
      }
      case ESC: {
        if (c === 0x75) {
          hexLeft = 4;
          s = HEX;
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
          s = STR;
        } else {
          return fail(E.ESCAPE, p, start, c, 0);
        }
        break;
      }
      case HEX: {
        if (!isHex(c)) return fail(E.UNICODE, p, start, c, 0);
        hexLeft--;
        if (hexLeft === 0) s = STR;
        break;
      }
      case LIT: {
        // Bytes 0–3 of the literal are packed in `lit`; only "false" has a fifth, 'e'.
        const want = litPos < 4 ? (lit >> (litPos << 3)) & 0xff : 0x65;
        if (c !== want) return fail(E.TOKEN, p, start, c, 0);
        litPos++;
        if (litPos === litLen) {
          if (depth === 1) endCapture(p + 1);
          s = AFTER;
        }
        break;
      }
      case N_MINUS: {
        if (c === 0x30) s = N_ZERO;
        else if (c - 0x31 < 9) s = N_INT;
        else return fail(E.MINUS, p, start, c, 0);
        break;
      }
      case N_DOT: {
        if (c - 0x30 >= 10) return fail(E.FRACTION, p, start, c, 0);
        s = N_FRAC;
        break;
      }
      case N_E: {
        if (c === 0x2b || c === 0x2d) s = N_ESIGN;
        else if (c - 0x30 < 10) s = N_EXP;
        else return fail(E.EXPONENT, p, start, c, 0);
        break;
      }
      case N_ESIGN: {
        if (c - 0x30 >= 10) return fail(E.EXPONENT, p, start, c, 0);
        s = N_EXP;
        break;
      }
      default: {
        // N_ZERO, N_INT, N_FRAC, N_EXP: a number that may go on.
        const digit = c - 0x30 < 10;
        if (digit && s !== N_ZERO) break;
        if (c === 0x2e && (s === N_ZERO || s === N_INT)) {
          s = N_DOT;
          break;
        }
        if ((c | 0x20) === 0x65 && s !== N_EXP) {
          s = N_E;
          break;
        }
        if (digit) return fail(E.LEADING_ZERO, p, start, c, 0);
        // The number ended before this byte: look at the byte again as what follows it.
        if (depth === 1) endCapture(p);
        s = AFTER;
        continue;
      }
    }
    p++;
  }
  state = s;
  // The piece ends: what it holds of an unfinished key or value is kept apart.
  key.pieceEnds(end);
  pieceEnds(end, streaming);
  consumed += n;
  return 1;
}

/** The line ended: 1 if it was exactly one JSON value. */
export function finish(): u32 {
  const s = state;
  if (s === FAIL) return 0;
  if (depth === 0 && (s === N_ZERO || s === N_INT || s === N_FRAC || s === N_EXP || s === AFTER)) {
    state = AFTER;
    return 1;
  }
  state = FAIL;
  store<i32>(slot(R_ERR), E.END);
  store<i32>(slot(R_ERR_POS), <i32>consumed);
  store<i32>(slot(R_ERR_BYTE), 0); // (no byte: not left from an earlier line either)
  store<i32>(slot(R_ERR_AUX), 0);
  return 0;
}

/** Where JS copies pieces, and how much fits. */
export function input(): u32 {
  return INPUT;
}

export function inputMax(): u32 {
  return INPUT_MAX;
}
