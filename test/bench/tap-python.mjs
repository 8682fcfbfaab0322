/**
 * The Python host of tap-cost.mjs (tap-host.py): real pipes on the host's side
 * (`subprocess.PIPE`), where this process, Node's `spawn`, gives a socketpair. Null when
 * python3 (with os.readv) is not there, or the host failed (said on stdout).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** `cfg`: frame, runs, pairs, messages and the command lines (tap-host.py says which). */
export function pythonHost(cfg, env) {
  const check = spawnSync('python3', ['-c', 'import os; os.readv'], { stdio: 'ignore' });
  if (check.status !== 0) return null;
  const file = fileURLToPath(new URL('./tap-host.py', import.meta.url));
  const r = spawnSync('python3', [file, JSON.stringify(cfg)], {
    env,
    encoding: 'utf8',
    timeout: 180_000,
    killSignal: 'SIGKILL',
  });
  if (r.status !== 0) {
    console.log(
      `python host failed (${r.status ?? r.signal}): ${(r.stderr ?? '').trim().split('\n').pop()}`,
    );
    return null;
  }
  return JSON.parse(r.stdout);
}
