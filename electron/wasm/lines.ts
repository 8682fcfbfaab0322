/**
 * A chunk's whole lines split and scanned in one call into the module: the transport worker's
 * framing and scanning of its small frames (electron/worker/read/line-batch.ts, LineBatch), with the
 * id of a plain response read here too, and runs of plain responses answered a run at a time
 * (where a run ends, its bytes, its rows as batch metadata). Each line is scanned by the
 * machine of json-scan.ts.
 */

import { feed, finish, reset } from './json-scan';
import {
  COL_BYTES,
  COLS,
  capSlot,
  F_ERROR,
  F_ID,
  F_JSONRPC,
  F_METHOD,
  F_RESULT,
  INPUT,
  LINES_MAX,
  OUT,
  R_ERR,
  R_ERR_AUX,
  R_ERR_BYTE,
  R_ERR_POS,
  R_PRESENT,
  R_TOP,
  ROW,
  slot,
} from './layout';
import { learn, lineFromTemplate, templateNewline } from './template';

/** Row slots written for every line (see splitScan): 0 valid (1), not JSON (0) or over the
 *  limit (2); 1 top; 2 present bits; 3–6 error code, position, byte, detail (3: the raw length of
 *  a line over the limit); member f (1..6) at 6 + 2f: start (address), length (-1 over its cap). */
const ROW_START: u32 = 20; // line start (offset in INPUT)
const ROW_END: u32 = 21; // line end, one trailing \r left out
const ROW_PLAIN_ID: u32 = 22; // f64 over slots 22–23: the id of a plain response, else -1

/** The id of a plain response — "jsonrpc":"2.0" spelled plainly, an id of 1–15 digits, a
 *  result, no method, no error — or -1 (then JS classifies the row the general way). */
function plainId(): f64 {
  const present = <u32>load<i32>(slot(R_PRESENT));
  const need: u32 = (1 << F_JSONRPC) | (1 << F_ID) | (1 << F_RESULT);
  if (load<i32>(slot(R_TOP)) !== 1 || (present & need) !== need) return -1;
  if ((present & ((1 << F_METHOD) | (1 << F_ERROR))) !== 0) return -1;
  if (load<i32>(capSlot(F_JSONRPC, 2)) !== 0 || load<i32>(capSlot(F_ID, 2)) !== 0) return -1;
  if (load<i32>(capSlot(F_JSONRPC, 1)) !== 5) return -1;
  const v = <u32>load<i32>(capSlot(F_JSONRPC, 0));
  if (load<u32>(v) !== 0x302e3222 || load<u8>(v + 4) !== 0x22) return -1; // "2.0"
  const at = <u32>load<i32>(capSlot(F_ID, 0));
  const len = <u32>load<i32>(capSlot(F_ID, 1));
  if (len < 1 || len > 15) return -1;
  let id: f64 = 0;
  for (let k: u32 = 0; k < len; k++) {
    const d = <u32>load<u8>(at + k) - 0x30;
    if (d >= 10) return -1;
    id = id * 10 + <f64>d;
  }
  return id;
}

/** Scans INPUT[from, to) as one line with the machine (learning its shape when valid) into
 *  result row `row`. */
function scanRow(row: u32, from: u32, to: u32): void {
  reset();
  const ok = feed(from, to - from, false) !== 0 && finish() !== 0;
  if (ok) learn(from, to);
  writeRow(row, from, to, ok);
}

/** Row `row` for the line INPUT[from, to) from the results in RES. */
function writeRow(row: u32, from: u32, to: u32, ok: bool): void {
  store<i32>(row, ok ? 1 : 0);
  store<i32>(row + 4, load<i32>(slot(R_TOP)));
  const present = load<i32>(slot(R_PRESENT));
  store<i32>(row + 8, present);
  store<i32>(row + (ROW_START << 2), <i32>(from - INPUT));
  store<i32>(row + (ROW_END << 2), <i32>(to - INPUT));
  store<f64>(row + (ROW_PLAIN_ID << 2), ok ? plainId() : -1);
  if (!ok) {
    store<i32>(row + 12, load<i32>(slot(R_ERR)));
    store<i32>(row + 16, load<i32>(slot(R_ERR_POS)));
    store<i32>(row + 20, load<i32>(slot(R_ERR_BYTE)));
    store<i32>(row + 24, load<i32>(slot(R_ERR_AUX)));
    return;
  }
  for (let f: u32 = 1; f <= 6; f++) {
    if (((<u32>present >> f) & 1) === 0) continue;
    const at = row + ((6 + (f << 1)) << 2);
    store<i32>(at, load<i32>(capSlot(f, 0)));
    store<i32>(at + 4, load<i32>(capSlot(f, 2)) !== 0 ? -1 : load<i32>(capSlot(f, 1)));
  }
}

/** First 0x0a in [p, end), 16 bytes at a time (end when there is none). */
function newline(p: u32, end: u32): u32 {
  const lf = i8x16.splat(0x0a);
  while (p + 16 <= end) {
    const bits = i8x16.bitmask(i8x16.eq(v128.load(p), lf));
    if (bits !== 0) return p + <u32>ctz(bits);
    p += 16;
  }
  while (p < end && load<u8>(p) !== 0x0a) p++;
  return p;
}

let splitStopAt: u32 = 0;

/**
 * Splits INPUT[from, to) — whole lines, each ending in \n — into lines and scans each into a
 * row: the worker's framing and scanning of a chunk's small frames in one call. A line longer than `maxLen` (after one \r left out) is not scanned: its row has 2 in
 * slot 0 and its length without the \n in slot 3. Returns the rows written; stops after
 * LINES_MAX rows, at splitStop() (== to when all is done).
 */
export function splitScan(from: u32, to: u32, maxLen: u32): u32 {
  let p = INPUT + from;
  const end = INPUT + to;
  let i: u32 = 0;
  while (p < end && i < LINES_MAX) {
    const row = OUT + i * (ROW << 2);
    // A line of a shape seen before is matched whole, its newline found on the way.
    let e = lineFromTemplate(p, end, maxLen);
    if (e !== 0) {
      writeRow(row, p, e, true);
      p = templateNewline() + 1;
      i++;
      continue;
    }
    const nl = newline(p, end);
    e = nl;
    if (e > p && load<u8>(e - 1) === 0x0d) e--;
    if (e - p > maxLen) {
      store<i32>(row, 2);
      store<i32>(row + 12, <i32>(nl - p));
      store<i32>(row + (ROW_START << 2), <i32>(p - INPUT));
      store<i32>(row + (ROW_END << 2), <i32>(e - INPUT));
    } else {
      scanRow(row, p, e);
    }
    p = nl + 1;
    i++;
  }
  splitStopAt = p - INPUT;
  return i;
}

export function splitStop(): u32 {
  return splitStopAt;
}

/** Whether row r is a plain response (valid, within the limit, with a plain id). */
function plain(r: u32): bool {
  const row = OUT + r * (ROW << 2);
  return load<i32>(row) === 1 && load<f64>(row + (ROW_PLAIN_ID << 2)) >= 0;
}

/** The end of the run of plain responses starting at row r: the first row in [r, rows) that is
 *  not one (rows when all are; r when row r is not). */
export function plainRunEnd(r: u32, rows: u32): u32 {
  while (r < rows && plain(r)) r++;
  return r;
}

let runLongest: u32 = 0;

/** The bytes of rows [r0, r1) summed (runLargest(): the longest of them). */
export function runBytes(r0: u32, r1: u32): f64 {
  let sum: f64 = 0;
  let longest: u32 = 0;
  for (let r = r0; r < r1; r++) {
    const row = OUT + r * (ROW << 2);
    const n = <u32>(load<i32>(row + (ROW_END << 2)) - load<i32>(row + (ROW_START << 2)));
    sum += <f64>n;
    if (n > longest) longest = n;
  }
  runLongest = longest;
  return sum;
}

export function runLargest(): u32 {
  return runLongest;
}

/**
 * Rows [r0, r1) of plain responses as a batch's metadata, five f64 per row at COLS: stream
 * offset (offsetDelta + start), length, batch position (base + start), t, id — the layout of
 * MetaColumns (electron/wire/columns.ts), copied there in one step.
 */
export function runColumns(r0: u32, r1: u32, offsetDelta: f64, base: f64, t: f64): u32 {
  let o = COLS;
  for (let r = r0; r < r1; r++) {
    const row = OUT + r * (ROW << 2);
    const start = load<i32>(row + (ROW_START << 2));
    const n = load<i32>(row + (ROW_END << 2)) - start;
    store<f64>(o, offsetDelta + <f64>start);
    store<f64>(o + 8, <f64>n);
    store<f64>(o + 16, base + <f64>start);
    store<f64>(o + 24, t);
    store<f64>(o + 32, load<f64>(row + (ROW_PLAIN_ID << 2)));
    o += COL_BYTES;
  }
  return COLS;
}

export function outAt(): u32 {
  return OUT;
}
