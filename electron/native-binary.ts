/**
 * Whether a built pipescope-relay can start on this system, read from its ELF header (no
 * process: the tap's start-up is the server's). A dist/ built on one system and copied to another
 * (a glibc build stage, a musl runtime; another machine) holds a binary whose exec fails: the tap
 * would lose every session to it, where its JavaScript relay works; and `tap install` would
 * write a host config whose every server fails to start (the relay starts the tap there).
 */
import { accessSync, closeSync, constants, existsSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built relay (scripts/build-native.mjs), in dist/electron/tap/. */
export const RELAY_BINARY = fileURLToPath(new URL('./tap/pipescope-relay', import.meta.url));

/** Why `binary` cannot run here (null: it can): Linux only, built, and able to start. */
export function relayBinaryUnavailable(binary = RELAY_BINARY): string | null {
  if (process.platform !== 'linux') return `not on ${process.platform} (splice is Linux's)`;
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    return 'pipescope-relay was not built (no C compiler when `npm run build` ran)';
  }
  try {
    const why = elfCannotRun(binary);
    return why === null ? null : `pipescope-relay cannot start here: ${why}`;
  } catch (e) {
    return `pipescope-relay cannot be read: ${(e as Error).message}`;
  }
}

/** e_machine of the architectures Node runs on. */
const ELF_MACHINE: Partial<Record<string, number>> = {
  x64: 62,
  arm64: 183,
  arm: 40,
  ia32: 3,
  riscv64: 243,
  ppc64: 21,
  s390x: 22,
  loong64: 258,
};
const PT_INTERP = 3;

/** Why `file` cannot start here (null: as far as its header says, it can). */
export function elfCannotRun(file: string): string | null {
  const head = Buffer.alloc(4096);
  const fd = openSync(file, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (n < 64 || head.readUInt32BE(0) !== 0x7f454c46) return 'it is not an ELF binary';
  if (head[5] !== 1) return null; // big-endian: not read here
  const machine = head.readUInt16LE(18);
  const ours = ELF_MACHINE[process.arch];
  if (ours !== undefined && machine !== ours)
    return `it was built for another machine (ELF machine ${machine})`;
  if (head[4] !== 2) return null; // 32-bit: its loader not read here
  // Its loader (glibc's ld-linux, musl's ld-musl): missing, the exec fails (ENOENT).
  const phoff = Number(head.readBigUInt64LE(32));
  const phentsize = head.readUInt16LE(54);
  const phnum = head.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 56 > n) break;
    if (head.readUInt32LE(at) !== PT_INTERP) continue;
    const off = Number(head.readBigUInt64LE(at + 8));
    const size = Number(head.readBigUInt64LE(at + 32));
    if (off + size > n) break;
    const interp = head.toString('latin1', off, off + size).split('\0')[0] ?? '';
    if (interp && !existsSync(interp)) return `its loader ${interp} is not on this system`;
  }
  return null;
}
