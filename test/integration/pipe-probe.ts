/**
 * test/integration/pipe-probe.c, built once per test file with the C compiler the native relay
 * is built with ($CC or `cc`) into a directory anyone may read (a test may run it as another
 * user): what Node cannot ask of a pipe (its size), and a user's pipe pages used up.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO } from './helpers.js';

let built: string | null | undefined;

/** Removes what pipeProbe built (a test file's afterAll). */
export function removePipeProbe(): void {
  if (built) rmSync(path.dirname(built), { recursive: true, force: true });
  built = undefined;
}

/** The probe's path, or null where it cannot be built. */
export function pipeProbe(): string | null {
  if (built !== undefined) return built;
  const dir = mkdtempSync(path.join(tmpdir(), 'pipe-probe-'));
  chmodSync(dir, 0o755);
  const out = path.join(dir, 'pipe-probe');
  const r = spawnSync(
    process.env.CC || 'cc',
    ['-O2', '-o', out, path.join(REPO, 'test/integration/pipe-probe.c')],
    { stdio: 'ignore' },
  );
  built = r.status === 0 ? out : null;
  return built;
}

/** The pipes `pid` has open, each once: inode -> size in bytes (F_GETPIPE_SZ). */
export function pipeSizes(pid: number): Map<string, number> {
  const probe = pipeProbe();
  if (!probe) throw new Error('no pipe probe');
  const r = spawnSync(probe, ['sizes', String(pid)], { encoding: 'utf8' });
  const sizes = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    const [ino, size] = line.split(' ');
    if (ino && size) sizes.set(ino, Number(size));
  }
  return sizes;
}

/** What `pid`'s pipes may hold together, in bytes: what they count against its user's pipe pages. */
export function pipeCapacity(pid: number): number {
  let n = 0;
  for (const size of pipeSizes(pid).values()) n += size;
  return n;
}
