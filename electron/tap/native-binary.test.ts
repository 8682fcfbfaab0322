/**
 * Whether the built pipescope-relay can run on this system (native-relay.ts's choice): a binary
 * that cannot (built elsewhere and copied with dist/: another libc's loader, another machine)
 * must leave the tap on its JavaScript relay, not fail every session. Real files, real exec.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeRelayUnavailable } from './native-relay.js';

const linux = process.platform === 'linux';
const hasCc = linux && spawnSync('cc', ['--version']).status === 0;
const dir = mkdtempSync(path.join(tmpdir(), 'native-binary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function compile(name: string, flags: string[]): string {
  const src = path.join(dir, `${name}.c`);
  const out = path.join(dir, name);
  writeFileSync(src, 'int main(void) { return 0; }\n');
  const r = spawnSync('cc', ['-o', out, src, ...flags], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return out;
}

describe.runIf(hasCc)('nativeRelayUnavailable: the binary itself', () => {
  it('one built here can run', () => {
    const ok = compile('ok', []);
    expect(spawnSync(ok).status).toBe(0);
    expect(nativeRelayUnavailable({}, ok)).toBeNull();
  });

  it("one whose loader is not on this system (another libc's) cannot, and says why", () => {
    const bin = compile('elsewhere', ['-Wl,--dynamic-linker=/nonexistent/ld-other.so.1']);
    expect(spawnSync(bin).error?.message).toContain('ENOENT'); // what the tap's spawn would get
    expect(nativeRelayUnavailable({}, bin)).toContain('/nonexistent/ld-other.so.1');
  });

  it('one for another machine cannot, and says why', () => {
    const bin = path.join(dir, 'other-machine');
    copyFileSync(compile('machine', []), bin);
    const bytes = readFileSync(bin);
    bytes.writeUInt16LE(bytes.readUInt16LE(18) === 62 ? 183 : 62, 18); // x86-64 <-> aarch64
    writeFileSync(bin, bytes, { mode: 0o755 });
    expect(spawnSync(bin).status).not.toBe(0);
    expect(nativeRelayUnavailable({}, bin)).toContain('another machine');
  });
});
