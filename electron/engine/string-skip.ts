/**
 * Finds the end of a JSON string's plain run fast: the first byte that is `"`, `\` or a control
 * character (< 0x20). The JSON scanner uses it for long strings, where a JS byte loop costs
 * ~0.75 ns/byte (a 64 MiB text result: ~50 ms) and this costs ~0.05 ns/byte.
 *
 * Owns: one small WebAssembly instance and its memory (a mirror of the chunk being scanned).
 * A chunk is copied in at most once (on the first long string in it) and the SIMD loop below
 * runs over the copy. Where WebAssembly SIMD is missing, a JS loop gives the same answers.
 *
 * The module is ~150 bytes, written out here opcode by opcode (WebAssembly core spec 1.0 +
 * fixed-width SIMD), so there is no build step and nothing generated is checked in:
 *
 *   (func $skip (param $i i32) (param $n i32) (result i32) (local $v v128) (local $m i32)
 *     block loop                                  ;; 16 bytes at a time
 *       (br_if 1 (i32.gt_u (i32.add $i 16) $n))
 *       $v = (v128.load $i)
 *       $m = (i8x16.bitmask (v128.or (v128.or (i8x16.eq $v "\"") (i8x16.eq $v "\\"))
 *                                    (i8x16.lt_u $v 0x20)))
 *       (if $m (return (i32.add $i (i32.ctz $m))))
 *       $i += 16  br 0
 *     end end
 *     loop                                        ;; the last < 16 bytes, one at a time
 *       (if (i32.ge_u $i $n) (return $n))
 *       (if (is_special (i32.load8_u $i)) (return $i))
 *       $i += 1  br 0
 *     end unreachable)
 */

const I32 = 0x7f;
const V128 = 0x7b;
const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  unreachable: 0x00,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load8u: 0x2d,
  i32Const: 0x41,
  i32Eq: 0x46,
  i32LtU: 0x49,
  i32GtU: 0x4b,
  i32GeU: 0x4f,
  i32Ctz: 0x68,
  i32Add: 0x6a,
  i32Or: 0x72,
  simd: 0xfd,
} as const;
const SIMD = { v128Load: 0x00, i8x16Splat: 0x0f, i8x16Eq: 0x23, i8x16LtU: 0x26, v128Or: 0x50 };
const SIMD_BITMASK = 0x64; // i8x16.bitmask
const VOID = 0x40;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Unsigned LEB128. */
function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** i32.const with a signed LEB128 immediate (0x5c needs two bytes: bit 6 is the sign). */
function i32(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return [OP.i32Const, ...out];
    }
    out.push(b | 0x80);
  }
}

function moduleBytes(): Uint8Array {
  const [I, N, V, M] = [0, 1, 2, 3]; // locals: params $i $n, then $v (v128), $m (i32)
  const get = (l: number) => [OP.localGet, l];
  const simd = (op: number) => [OP.simd, ...leb(op)];
  const eqSplat = (byte: number) => [...get(V), ...i32(byte), ...simd(SIMD.i8x16Splat)];
  const code = [
    OP.block, VOID, OP.loop, VOID,
    ...get(I), ...i32(16), OP.i32Add, ...get(N), OP.i32GtU, OP.brIf, 1,
    ...get(I), ...simd(SIMD.v128Load), 0, 0, OP.localSet, V,
    ...eqSplat(QUOTE), ...simd(SIMD.i8x16Eq),
    ...eqSplat(BACKSLASH), ...simd(SIMD.i8x16Eq), ...simd(SIMD.v128Or),
    ...eqSplat(0x20), ...simd(SIMD.i8x16LtU), ...simd(SIMD.v128Or),
    ...simd(SIMD_BITMASK), OP.localTee, M,
    OP.if, VOID, ...get(I), ...get(M), OP.i32Ctz, OP.i32Add, OP.return, OP.end,
    ...get(I), ...i32(16), OP.i32Add, OP.localSet, I, OP.br, 0,
    OP.end, OP.end,
    OP.loop, VOID,
    ...get(I), ...get(N), OP.i32GeU, OP.if, VOID, ...get(N), OP.return, OP.end,
    ...get(I), OP.i32Load8u, 0, 0, OP.localTee, M,
    ...i32(0x20), OP.i32LtU,
    ...get(M), ...i32(QUOTE), OP.i32Eq, OP.i32Or,
    ...get(M), ...i32(BACKSLASH), OP.i32Eq, OP.i32Or,
    OP.if, VOID, ...get(I), OP.return, OP.end,
    ...get(I), ...i32(1), OP.i32Add, OP.localSet, I, OP.br, 0,
    OP.end, OP.unreachable, OP.end,
  ]; // biome-ignore format: one instruction group per line reads like the listing above
  const body = [2, 1, V128, 1, I32, ...code]; // locals: 1 × v128, 1 × i32
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
  const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]), // type 0: (i32, i32) -> i32
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0x00, 1]), // one memory, min 1 page, no max
    ...section(7, [2, ...name('skip'), 0x00, 0, ...name('mem'), 0x02, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

export interface StringSkipper {
  /** Index in `buf` of the first `"`, `\` or byte < 0x20 in [from, to), or `to`. */
  skip(buf: Uint8Array, from: number, to: number): number;
  /** Forget the mirrored bytes: call before scanning a buffer that may have changed. */
  forget(): void;
  /** Promise that `buf` will not change until the next `pin`: the first long string in it
   *  mirrors the whole of it (up to the window), and `forget` keeps that mirror. For a pipe
   *  chunk full of small frames: one copy per chunk instead of one per string. */
  pin(buf: Uint8Array): void;
  /** Whether the SIMD path is in use (false: the JS fallback). */
  readonly simd: boolean;
}

function skipJs(buf: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = buf[i];
    if (c === QUOTE || c === BACKSLASH || c < 0x20) return i;
  }
  return to;
}

// The project's lib has no WebAssembly types (no DOM lib here): the little used is typed here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const Wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65536;
/** Most bytes mirrored at once (the wasm memory never grows past this). */
const WINDOW = 1024 * 1024;

/**
 * One skipper per thread is enough. It mirrors [from, to) of the buffer of the first call after
 * `forget()` and serves later calls inside that range from the copy, so a scan over one piece
 * copies each byte at most once.
 */
export function createStringSkipper(opts: { simd?: boolean } = {}): StringSkipper {
  const bytes = moduleBytes();
  if (opts.simd === false || !Wasm?.validate(bytes)) {
    return { skip: skipJs, forget: () => {}, pin: () => {}, simd: false };
  }
  const instance = new Wasm.Instance(new Wasm.Module(bytes));
  const wasmSkip = instance.exports.skip as (i: number, n: number) => number;
  const memory = instance.exports.mem as WasmMemory;
  let view = new Uint8Array(memory.buffer);
  // buf[mirrorFrom, mirrorTo) sits at view[0, mirrorTo - mirrorFrom).
  let mirrorOf: Uint8Array | null = null;
  let mirrorFrom = 0;
  let mirrorTo = 0;
  let pinned: Uint8Array | null = null;

  function skip(buf: Uint8Array, from: number, to: number): number {
    let i = from;
    while (i < to) {
      if (buf !== mirrorOf || i < mirrorFrom || i >= mirrorTo) {
        // Mirror at most WINDOW bytes: the wasm memory stays small whatever the frame size.
        // A pinned buffer is mirrored to its end, for the strings after this one.
        const end = Math.min(buf === pinned ? buf.length : to, i + WINDOW);
        if (end - i > view.length) {
          memory.grow(Math.ceil((end - i - view.length) / PAGE));
          view = new Uint8Array(memory.buffer);
        }
        // A plain Uint8Array view: Buffer#subarray would build a Buffer (several times dearer).
        view.set(new Uint8Array(buf.buffer, buf.byteOffset + i, end - i), 0);
        mirrorOf = buf;
        mirrorFrom = i;
        mirrorTo = end;
      }
      const stop = Math.min(to, mirrorTo);
      const hit = wasmSkip(i - mirrorFrom, stop - mirrorFrom) + mirrorFrom;
      if (hit < stop) return hit;
      i = stop;
    }
    return to;
  }

  function forget(): void {
    if (mirrorOf !== pinned) mirrorOf = null;
  }

  function pin(buf: Uint8Array): void {
    pinned = buf;
    mirrorOf = null;
  }

  return { skip, forget, pin, simd: true };
}
