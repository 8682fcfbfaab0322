/**
 * Member keys, for the JSON scanner (json-scan.ts runs the machine, and imports this as `key`):
 * which top-level member the next value is (layout.ts names them), from a key whole in the piece
 * or cut across pieces.
 * A key cut by a piece boundary is gathered in KEYBUF, up to KEY_MAX bytes (a longer one names
 * no member we look for). The machine reads `inKey`, `pendingField` and `colonTaken`, and
 * changes them only through the functions here.
 */

import { skip } from './bytes';
import { fieldOfEscaped, fieldOfPlain, KEY_MAX, KEYBUF } from './layout';

/** The machine is inside a key's string. */
export let inKey: bool = false;
/** The member the next value is (0: none we look for). */
export let pendingField: u32 = 0;
/** plain() took the colon after its key too (the value comes next). */
export let colonTaken: bool = false;

let keyOpen: bool = false; // a top-level key is being gathered
let keyStart: u32 = 0; // where its bytes in the current piece begin
let keyLen: u32 = 0; // bytes already in KEYBUF
let keyOver: bool = false;
let keyEscaped: bool = false;

export function reset(): void {
  inKey = false;
  keyOpen = false;
  keyLen = 0;
  keyOver = false;
  pendingField = 0;
}

/** The next value is member `field` (0: none). */
export function nextField(field: u32): void {
  pendingField = field;
}

/** A key's string opens at `p` (its first byte); `top`: in the top-level object. */
export function begins(p: u32, top: bool): void {
  inKey = true;
  if (!top) return;
  keyOpen = true;
  keyStart = p;
  keyEscaped = false;
  keyLen = 0;
  keyOver = false;
}

/** The key has an escape: its member is named by its decoded bytes. */
export function escapes(): void {
  keyEscaped = true;
}

/** The key's string closes at `end` (its closing quote); `top`: in the top-level object. */
export function end(end: u32, top: bool): void {
  inKey = false;
  if (!top) return;
  const p = keyStart;
  keyOpen = false;
  if (keyLen === 0 && !keyOver) {
    pendingField = keyEscaped ? fieldOfEscaped(p, end - p) : fieldOfPlain(p, end - p);
    return;
  }
  keyAppend(p, end - p);
  pendingField = keyOver
    ? 0
    : keyEscaped
      ? fieldOfEscaped(KEYBUF, keyLen)
      : fieldOfPlain(KEYBUF, keyLen);
  keyLen = 0;
  keyOver = false;
}

/** A piece starts at `p`: a key still open goes on from there. */
export function pieceStarts(p: u32): void {
  if (keyOpen) keyStart = p;
}

/** The piece ends at `end`: what it holds of a key still open is kept apart. */
export function pieceEnds(end: u32): void {
  if (keyOpen) keyAppend(keyStart, end - keyStart);
}

function keyAppend(src: u32, n: u32): void {
  if (keyOver) return;
  if (keyLen + n > KEY_MAX) {
    keyOver = true;
    return;
  }
  memory.copy(KEYBUF + keyLen, src, n);
  keyLen += n;
}

/**
 * A plain key (no escapes) whole in [q, end), q at its opening quote, with the colon after it
 * when that is in the piece too: notes the member it names (when `top`) and returns where
 * scanning goes on, `colonTaken` saying whether that is past the colon; 0 when the key is not
 * plain and whole here (never an address in INPUT; the caller then takes the key byte by byte).
 */
export function plain(q: u32, end: u32, top: bool): u32 {
  const j = skip(q + 1, end);
  if (j >= end || load<u8>(j) !== 0x22) return 0;
  if (top) pendingField = fieldOfPlain(q + 1, j - q - 1);
  const p = j + 1;
  if (p < end && load<u8>(p) === 0x3a) {
    colonTaken = true;
    return p + 1;
  }
  colonTaken = false;
  return p;
}
