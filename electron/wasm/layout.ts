/**
 * The JSON scanner's memory layout, result slots and codes, shared by its modules
 * (json-scan.ts: the machine; lines.ts: a chunk's lines in one call). JS reads results through
 * the addresses the module exports (electron/worker/read/json-scan.ts).
 */

// --- memory layout ----------------------------------------------------------------------------
export const RES: u32 = 0;
export const KEYBUF: u32 = 1024;
export const KEY_MAX: u32 = 64;
/** template.ts: where a match found each literal of a template (u32 each, 65 at most). */
export const LSTARTS: u32 = 2048;
/** splitScan: one row of results per line, at most LINES_MAX rows a call. */
export const LINES_MAX: u32 = 32768;
export const OUT: u32 = 65536;
export const ROW: u32 = 24; // i32 slots per result row
/** runColumns: five f64 per row (a batch's metadata columns), LINES_MAX rows at most. */
export const COLS: u32 = OUT + LINES_MAX * (ROW << 2); // right after OUT's rows (49 pages)
export const COL_BYTES: u32 = 40;
/** template.ts: the line shapes learned, four of TPL_SIZE bytes, right after COLS (page 69). */
export const TPL: u32 = 69 << 16;
export const TPL_SIZE: u32 = 16384;
// After the templates, on a 64 KiB boundary.
export const CAPS: u32 = 70 << 16;
export const CAP_AREA: u32 = 1 << 20;
export const INPUT: u32 = CAPS + 7 * CAP_AREA;
export const INPUT_MAX: u32 = 2 << 20;
export const STACK: u32 = INPUT + INPUT_MAX; // = 214 pages: the initial memory (--initialMemory 214)

// RES slots (i32 each): 0 top, 1 present bits, 2 error code, 3 error position, 4 error byte,
// 5 error detail, then for member f (1..6) at 8 + 4f: start, length, over, owned.
export const R_TOP: u32 = 0;
export const R_PRESENT: u32 = 1;
export const R_ERR: u32 = 2;
export const R_ERR_POS: u32 = 3;
export const R_ERR_BYTE: u32 = 4;
export const R_ERR_AUX: u32 = 5;

// Member ids and the bytes kept of each value (`result`: presence only).
export const F_JSONRPC: u32 = 1;
export const F_ID: u32 = 2;
export const F_METHOD: u32 = 3;
export const F_RESULT: u32 = 4;
export const F_ERROR: u32 = 5;
export const F_PARAMS: u32 = 6;

export function capMax(f: u32): u32 {
  return f === F_JSONRPC ? 64 : f === F_RESULT ? 0 : CAP_AREA;
}

export function slot(i: u32): u32 {
  return RES + (i << 2);
}

export function capSlot(f: u32, k: u32): u32 {
  return RES + ((8 + (f << 2) + k) << 2);
}

// --- member keys ----------------------------------------------------------------------------

/** Bytes of "jsonrpc" etc. packed little-endian: first 4 bytes, then the rest. */
export function fieldOfPlain(p: u32, n: u32): u32 {
  if (n === 2) return load<u16>(p) === 0x6469 ? F_ID : 0; // "id"
  if (n === 5) return load<u32>(p) === 0x6f727265 && load<u8>(p + 4) === 0x72 ? F_ERROR : 0;
  if (n === 6) {
    const head = load<u32>(p);
    const tail = <u32>load<u16>(p + 4);
    if (head === 0x6874656d && tail === 0x646f) return F_METHOD; // "meth" "od"
    if (head === 0x75736572 && tail === 0x746c) return F_RESULT; // "resu" "lt"
    if (head === 0x61726170 && tail === 0x736d) return F_PARAMS; // "para" "ms"
    return 0;
  }
  if (n === 7) {
    // "json" "rpc"
    return load<u32>(p) === 0x6e6f736a && load<u16>(p + 4) === 0x7072 && load<u8>(p + 6) === 0x63
      ? F_JSONRPC
      : 0;
  }
  return 0;
}

/** A key with escapes: decoded into KEYBUF + 512 first (only ASCII can spell a member name). */
export function fieldOfEscaped(p: u32, n: u32): u32 {
  const out = KEYBUF + 512;
  let len: u32 = 0;
  let i: u32 = 0;
  while (i < n) {
    let c = <u32>load<u8>(p + i);
    if (c === 0x5c) {
      const e = <u32>load<u8>(p + i + 1);
      if (e === 0x75) {
        c = 0;
        for (let k: u32 = 2; k < 6; k++) {
          const h = <u32>load<u8>(p + i + k);
          c = (c << 4) | (h - 0x30 < 10 ? h - 0x30 : (h | 0x20) - 0x57);
        }
        i += 6;
      } else {
        c =
          e === 0x62 ? 8 : e === 0x66 ? 12 : e === 0x6e ? 10 : e === 0x72 ? 13 : e === 0x74 ? 9 : e;
        i += 2;
      }
    } else {
      i += 1;
    }
    if (c > 0x7f || len === 8) return 0;
    store<u8>(out + len, <u8>c);
    len++;
  }
  return fieldOfPlain(out, len);
}

// `{"jsonrpc":"2.0","id":` as little-endian loads: 8 bytes, 8 bytes, 4 bytes, 2 bytes.
const RPC_0: u64 = ((<u64>0x70726e6f) << 32) | 0x736a227b; // {"jsonrp
const RPC_8: u64 = ((<u64>0x22302e32) << 32) | 0x223a2263; // c":"2.0"
const RPC_16: u32 = 0x6469222c; // ,"id
const RPC_20: u16 = 0x3a22; // ":

/** Whether the 22 bytes at p are `{"jsonrpc":"2.0","id":`, how nearly every message begins
 *  (the machine takes them in one step). */
export function rpcPrefix(p: u32): bool {
  return (
    load<u64>(p) === RPC_0 &&
    load<u64>(p + 8) === RPC_8 &&
    load<u32>(p + 16) === RPC_16 &&
    load<u16>(p + 20) === RPC_20
  );
}

// The areas must not overlap: a layout edit that breaks this traps at instantiation (every
// scanner test fails at once) instead of corrupting results. Constant-folded away otherwise.
if (
  OUT + LINES_MAX * (ROW << 2) > COLS ||
  COLS + LINES_MAX * COL_BYTES > TPL ||
  TPL + 4 * TPL_SIZE > CAPS ||
  LSTARTS + 65 * 4 > OUT ||
  INPUT + INPUT_MAX > STACK
) {
  unreachable();
}
