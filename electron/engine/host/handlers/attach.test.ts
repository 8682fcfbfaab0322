// The attach channels through the SessionManager (validation included) on a real process: an
// idle Node this test starts with piped stdio, watched for a short window. It is the test's
// own child, so the test's process is the "host" holding the other end of its pipes.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttachReport, Candidate } from '../../../../shared/attach.js';
import type { Result } from '../../../../shared/result.js';
import { SessionManager } from '../session-manager.js';

const linux = process.platform === 'linux';
let manager: SessionManager;
const children: ChildProcess[] = [];

beforeAll(() => {
  manager = new SessionManager();
});
afterAll(async () => {
  await manager.stopAll();
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  }
});

function idleServer(): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(c);
  return c;
}

async function ready(c: ChildProcess): Promise<number> {
  await new Promise((r, j) => {
    c.once('spawn', r);
    c.once('error', j);
  });
  // Let Node reach its event loop (a process caught in exec has no stable tree yet).
  await new Promise((r) => setTimeout(r, 300));
  return c.pid as number;
}

describe('attach:list and attach:run', () => {
  it('lists candidates as an array', async () => {
    const r = (await manager.handle('attach:list', {})) as Result<Candidate[]>;
    expect(r.ok).toBe(true);
    if (r.ok) expect(Array.isArray(r.value)).toBe(true);
  });

  it.runIf(linux)(
    'watches an idle process: its pid, no requests, no error finding, its tree and the host',
    async () => {
      const pid = await ready(idleServer());
      const r = (await manager.handle('attach:run', {
        pid,
        watchMs: 1000,
      })) as Result<AttachReport>;
      if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
      const report = r.value;
      expect(report.server.pid).toBe(pid);
      expect(report.server.command).toBe(process.execPath);
      expect(report.requests).toEqual([]);
      expect(report.recovery).toBeNull();
      expect(report.findings.filter((f) => f.level === 'error')).toEqual([]);
      expect(report.process.available).toBe(true);
      expect(report.process.samples).toBeGreaterThanOrEqual(2);
      expect(report.attach.watchMs).toBe(1000);
      expect(report.attach.tree[0]).toMatchObject({ pid, depth: 0 });
      // Node's 'pipe' stdio is a Unix socket pair.
      expect(report.attach.stdio.map((s) => [s.fd, s.kind])).toEqual([
        [0, 'socket'],
        [1, 'socket'],
        [2, 'socket'],
      ]);
      // The test's process holds the other end of each pipe: the host.
      expect(report.attach.host?.pid).toBe(process.pid);
      expect(report.attach.parent?.pid).toBe(process.pid);
      for (const s of report.attach.stdio) expect(s.peer?.pid).toBe(process.pid);
      expect(report.attach.summary).not.toBe('');
    },
    20_000,
  );

  it('refuses a pid that is not running, and a window out of bounds', async () => {
    const c = idleServer();
    const pid = await ready(c);
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
    const r = await manager.handle('attach:run', { pid, watchMs: 500 });
    expect(r.ok ? null : r.error.code).toBe('EATTACH');
    const long = await manager.handle('attach:run', { pid: process.pid, watchMs: 20_000 });
    expect(long.ok ? null : long.error.code).toBe('EINVAL');
    const zero = await manager.handle('attach:run', { pid: 0 });
    expect(zero.ok ? null : zero.error.code).toBe('EINVAL');
  });
});
