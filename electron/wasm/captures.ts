/**
 * Captures of the JSON scanner (json-scan.ts): where the values of the top-level members
 * classification reads lie (layout.ts names them and caps each). A value lies in the piece being
 * fed until the piece goes: then what the line still needs is copied into the member's own area
 * in CAPS (one per member, at most its cap; over it, the member is marked and no longer kept).
 *
 * Result slots of member f (layout.ts capSlot): 0 start (address), 1 length, 2 over its cap,
 * 3 owned (copied into its area). Presence is a bit of R_PRESENT.
 */

import { CAP_AREA, CAPS, capMax, capSlot, R_PRESENT, slot } from './layout';

/** The member whose value is being scanned (0: none), and where it starts in this piece. */
let capField: u32 = 0;
let capStart: u32 = 0;

export function resetCaptures(): void {
  capField = 0;
}

/** Appends src[0, n) to member f's own area (or marks it over its cap). */
function capAppend(f: u32, src: u32, n: u32): void {
  if (load<i32>(capSlot(f, 2)) !== 0) return;
  const len = <u32>load<i32>(capSlot(f, 1));
  if (len + n > capMax(f)) {
    store<i32>(capSlot(f, 2), 1);
    return;
  }
  memory.copy(CAPS + (f - 1) * CAP_AREA + len, src, n);
  store<i32>(capSlot(f, 1), <i32>(len + n));
}

/** Member f's value starts at p (in the piece). */
export function capBegin(f: u32, p: u32): void {
  store<i32>(slot(R_PRESENT), load<i32>(slot(R_PRESENT)) | (1 << f));
  store<i32>(capSlot(f, 0), <i32>p);
  store<i32>(capSlot(f, 1), 0);
  store<i32>(capSlot(f, 2), 0);
  store<i32>(capSlot(f, 3), 0);
  capField = f;
  capStart = p;
}

/** A top-level value ended before `end` (in the piece): its capture, if any, ends there. */
export function endCapture(end: u32): void {
  const f = capField;
  if (f === 0) return;
  capField = 0;
  const max = capMax(f);
  if (max === 0) return;
  if (load<i32>(capSlot(f, 3)) !== 0) {
    capAppend(f, capStart, end - capStart);
    return;
  }
  const n = end - capStart;
  if (n > max) store<i32>(capSlot(f, 2), 1);
  else store<i32>(capSlot(f, 1), <i32>n);
}

/** Copies a member still pointing into the piece into its own area (the piece is going). */
function capOwn(f: u32): void {
  if (load<i32>(capSlot(f, 3)) !== 0 || load<i32>(capSlot(f, 2)) !== 0) return;
  const start = <u32>load<i32>(capSlot(f, 0));
  const n = <u32>load<i32>(capSlot(f, 1));
  store<i32>(capSlot(f, 3), 1);
  store<i32>(capSlot(f, 1), 0);
  store<i32>(capSlot(f, 0), <i32>(CAPS + (f - 1) * CAP_AREA));
  capAppend(f, start, n);
}

/** A new piece starts at p: a value still being captured goes on from there. */
export function pieceStarts(p: u32): void {
  if (capField !== 0) capStart = p;
}

/**
 * The piece ends at `end`: the part of a value still being captured is copied into its area;
 * `streaming` (the piece will not outlive the call) copies every finished capture too.
 */
export function pieceEnds(end: u32, streaming: bool): void {
  const open = capField;
  if (open !== 0 && capMax(open) !== 0) {
    if (load<i32>(capSlot(open, 3)) === 0) {
      store<i32>(capSlot(open, 3), 1);
      store<i32>(capSlot(open, 0), <i32>(CAPS + (open - 1) * CAP_AREA));
      store<i32>(capSlot(open, 1), 0);
    }
    capAppend(open, capStart, end - capStart);
  }
  if (!streaming) return;
  const present = <u32>load<i32>(slot(R_PRESENT));
  for (let f: u32 = 1; f <= 6; f++) if ((present >> f) & 1 && f !== open) capOwn(f);
}
