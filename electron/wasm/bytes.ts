/**
 * Byte tests of the JSON scanner (json-scan.ts), on its memory.
 */

/** First `"`, `\` or byte < 0x20 in [p, end), 16 bytes at a time. */
export function skip(p: u32, end: u32): u32 {
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  while (p + 16 <= end) {
    const v = v128.load(p);
    const m = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space));
    const bits = i8x16.bitmask(m);
    if (bits !== 0) return p + <u32>ctz(bits);
    p += 16;
  }
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c === 0x22 || c === 0x5c || c < 0x20) return p;
    p++;
  }
  return end;
}

/** JSON whitespace (one compare rules out the bytes above the space). */
export function isWs(c: u32): bool {
  return c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09);
}

export function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}
