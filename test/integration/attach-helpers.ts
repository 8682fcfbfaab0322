/**
 * Helpers of the attach integration tests: test hosts started and always ended (their servers
 * checked gone), waits on a process's state through /proc, and the CLI run as another user.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { descendants, running } from '../fixtures/processes.js';
import { CLI, REPO, recordedPids, waitFor, withTimeout } from './helpers.js';

export interface Hosted {
  child: ChildProcess;
  host: number;
  server: number;
}

export const hosts: Hosted[] = [];

/** Starts a test host (`program` runs `script`) on a server, resolved once it says ready. */
export async function startHost(
  program: string,
  script: string,
  mode: 'block' | 'read',
  server: string[],
  extra: string[] = [],
): Promise<Hosted> {
  const child = spawn(program, [script, '--mode', mode, ...extra, '--', ...server], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (child.pid !== undefined) recordedPids.add(child.pid);
  let out = '';
  const ready = new Promise<{ host: number; server: number }>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const line = out.split('\n').find((l) => l.includes('"ready"'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`test host exited (${code}) before ready`)));
  });
  const pids = await withTimeout(ready, 15_000, 'the test host to be ready');
  recordedPids.add(pids.server);
  const hosted = { child, ...pids };
  hosts.push(hosted);
  return hosted;
}

/** Ends a host (stdin EOF: it kills its server), bounded, and checks both are gone. */
export async function stopHost(h: Hosted): Promise<void> {
  const exited = new Promise<void>((r) => {
    if (h.child.exitCode !== null || h.child.signalCode !== null) r();
    else h.child.once('exit', () => r());
  });
  h.child.stdin?.end();
  await withTimeout(exited, 5000, 'the test host to exit').catch(() => {
    h.child.kill('SIGKILL');
    if (running(h.server)) process.kill(h.server, 'SIGKILL');
  });
  await waitFor(() => !running(h.server), 5000, `server ${h.server} gone`);
}

/** Until the server sits in write(1, …): the host has stopped reading and the pipe is full. */
export async function blockedInWrite(pid: number): Promise<void> {
  await waitFor(
    () => {
      try {
        return /^1 0x1 /.test(readFileSync(`/proc/${pid}/syscall`, 'latin1'));
      } catch {
        return false;
      }
    },
    10_000,
    `pid ${pid} blocked in write(1)`,
    50,
  );
}

/** Until some process under `pid` sits in write(1, …) (a child on a pipe nobody drains). */
export async function childBlockedInWrite(pid: number): Promise<number> {
  return waitFor(
    () =>
      descendants(pid).find((p) => {
        try {
          return /^1 0x1 /.test(readFileSync(`/proc/${p.pid}/syscall`, 'latin1'));
        } catch {
          return false;
        }
      })?.pid,
    10_000,
    `a child of ${pid} blocked in write(1)`,
    50,
  );
}

/** Until `pid` is on CPU (state R). */
export async function onCpu(pid: number): Promise<void> {
  await waitFor(
    () => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        return stat.slice(stat.lastIndexOf(')') + 2).startsWith('R');
      } catch {
        return false;
      }
    },
    10_000,
    `pid ${pid} on CPU`,
    50,
  );
}

/** The CLI run as another user (`uid`): it has no ptrace rights over our processes. */
export function runAs(uid: number, pid: number, watchMs: number) {
  const child = spawn(
    process.execPath,
    [CLI, 'attach', String(pid), '--json', '--watch-ms', String(watchMs)],
    {
      cwd: REPO,
      uid,
      gid: uid,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (child.pid !== undefined) recordedPids.add(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return withTimeout(done, 20_000, 'attach as another user');
}
