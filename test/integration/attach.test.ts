/**
 * `pipescope attach` on real processes (issue 20): a test host (test/fixtures/attach-host.mjs,
 * no SDK) starts a real server, initializes it, sends a tools/call with a 4 MiB answer and
 * stops reading; the real CLI, attached to the server by pid, must name the blocked write and
 * the host (`server-write-blocked` and `host-not-reading`, exit 1) on the socket pair a Node
 * host gives, and on the pipes a Python host gives. A host that keeps reading leaves an idle
 * server: exit 0, the summary says it waits for the next request. A child blocked on a pipe
 * the server stopped reading is `subprocess-blocked`, a server spinning on CPU `server-busy`,
 * neither the host's fault. A pid that does not exist
 * is a usage error (exit 2). `--list` finds a server whose parent is named like a host. Run
 * as another user, the report says the current system call is not readable and what that
 * costs. Linux: /proc is what attach reads. Every process a test starts is killed after it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import type { AttachReport, Candidate } from '../../dist/electron/engine/attach/types.js';
import {
  blockedInWrite,
  childBlockedInWrite,
  type Hosted,
  hosts,
  onCpu,
  runAs,
  startHost,
  stopHost,
} from './attach-helpers.js';
import { expectNothingLeftBehind, REPO, REPORT_KEYS, runCli } from './helpers.js';

const linux = process.platform === 'linux';
const python = ((): boolean => {
  try {
    execFileSync('python3', ['-c', 'pass'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const HOST_JS = path.join(REPO, 'test/fixtures/attach-host.mjs');
const HOST_PY = path.join(REPO, 'test/fixtures/attach_host.py');
const HEALTHY_PY = path.join(REPO, 'test/fixtures/servers/healthy.py');
const SUBPROCESS_PY = path.join(REPO, 'test/fixtures/servers/subprocess_blocked.py');
const FOUR_MIB = 4 * 1024 * 1024;
const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-attach-'));

afterEach(async () => {
  await Promise.all(hosts.splice(0).map(stopHost));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  expectNothingLeftBehind();
});

/** The oversized demo with a blocking stdout: it waits inside write(1, …), as C or Python do. */
function blockingDemo(): string[] {
  const d = demoCommand('oversized-result', { 'blocking-stdout': 'true' });
  return [d.command, ...d.args];
}

async function attachJson(pid: number, watchMs = 1500, uid?: number) {
  const r =
    uid === undefined
      ? await runCli(['attach', String(pid), '--json', '--watch-ms', String(watchMs)])
      : await runAs(uid, pid, watchMs);
  const report = JSON.parse(r.stdout) as AttachReport;
  return { ...r, report };
}

function codes(r: AttachReport): string[] {
  return r.findings.map((f) => f.code);
}

function expectBlockNamed(report: AttachReport, h: Hosted): void {
  expect(Object.keys(report).sort()).toEqual([...REPORT_KEYS, 'attach'].sort());
  expect(report.requests).toEqual([]);
  expect(report.recovery).toBeNull();
  expect(report.server).toMatchObject({ pid: h.server, exit: null });
  expect(report.process.available).toBe(true);
  expect(report.process.samples).toBeGreaterThanOrEqual(3);
  expect(codes(report)).toEqual(
    expect.arrayContaining(['server-write-blocked', 'host-not-reading']),
  );
  const blocked = report.findings.find((f) => f.code === 'server-write-blocked');
  expect(blocked?.evidence).toMatchObject({
    pid: h.server,
    syscall: { name: 'write', fd: 1 },
    proven: true,
  });
  expect(blocked?.evidence?.syscall?.bytes).toBeGreaterThan(0);
  expect(blocked?.message).toMatch(/write\(1, [\d,]+ B\)/);
  const host = report.findings.find((f) => f.code === 'host-not-reading');
  expect(host?.evidence).toMatchObject({ pid: h.host, server: { pid: h.server } });
  expect(host?.evidence?.command).toMatch(/attach[-_]host/);
  expect(host?.message).toContain(`pid ${h.host}`);
  const out = report.attach.stdio.find((s) => s.fd === 1);
  expect(out?.peer?.pid).toBe(h.host);
  expect(report.attach.host?.pid).toBe(h.host);
  expect(report.attach.parent?.pid).toBe(h.host);
  expect(report.attach.syscallReadable).toBe(true);
  expect(report.attach.tree[0]).toMatchObject({ pid: h.server, syscall: { name: 'write', fd: 1 } });
  expect(report.attach.summary).toMatch(/blocked writing its stdout/);
}

describe.runIf(linux)('pipescope attach <pid>', () => {
  it('a Node host that stopped reading: the blocked write and the host, on its socket pair', {
    timeout: 40_000,
  }, async () => {
    const h = await startHost(process.execPath, HOST_JS, 'block', blockingDemo(), [
      '--args',
      JSON.stringify({ bytes: FOUR_MIB }),
    ]);
    await blockedInWrite(h.server);
    const { code, report } = await attachJson(h.server);
    expectBlockNamed(report, h);
    const out = report.attach.stdio.find((s) => s.fd === 1);
    expect(out?.kind).toBe('socket');
    // Bytes wait unread at the host's end for the whole window.
    expect(out?.unread?.end).toBeGreaterThan(0);
    expect(out?.unread?.end).toBe(out?.unread?.start);
    expect(report.attach.stdio.find((s) => s.fd === 0)?.peer?.pid).toBe(h.host);
    expect(code).toBe(1);
  });

  it.runIf(python)(
    'a Python host that stopped reading: the same, on real pipes',
    {
      timeout: 40_000,
    },
    async () => {
      const h = await startHost('python3', HOST_PY, 'block', blockingDemo(), [
        '--args',
        JSON.stringify({ bytes: FOUR_MIB }),
      ]);
      await blockedInWrite(h.server);
      const { code, report } = await attachJson(h.server);
      expectBlockNamed(report, h);
      const out = report.attach.stdio.find((s) => s.fd === 1);
      expect(out).toMatchObject({ kind: 'pipe', peer: { pid: h.host } });
      expect(out?.peer?.how).toMatch(/read end/);
      expect(report.attach.stdio.find((s) => s.fd === 0)?.peer?.how).toMatch(/write end/);
      expect(code).toBe(1);
    },
  );

  it('a host that keeps reading and an idle server: no error, it waits for the next request', {
    timeout: 40_000,
  }, async () => {
    const server = python ? ['python3', HEALTHY_PY] : blockingDemo();
    const h = await startHost(process.execPath, HOST_JS, 'read', server);
    const { code, report, stderr } = await attachJson(h.server);
    expect(
      report.findings.filter((f) => f.level === 'error'),
      stderr,
    ).toEqual([]);
    expect(report.attach.summary).toMatch(/waiting (to read )?(for )?the host's next request/);
    if (python) expect(report.attach.summary).toMatch(/idle in read\(0, [\d,]+ B\)/);
    expect(report.attach.host?.pid).toBe(h.host);
    expect(report.requests).toEqual([]);
    expect(code).toBe(0);
  });

  it.runIf(python)(
    "a child blocked on a pipe the server stopped reading: subprocess-blocked, not the host's",
    {
      timeout: 40_000,
    },
    async () => {
      // The host calls the tool and stops reading: the server's own stdout stays empty meanwhile.
      const b = await startHost(
        process.execPath,
        HOST_JS,
        'block',
        ['python3', SUBPROCESS_PY],
        ['--call', 'run'],
      );
      const child = await childBlockedInWrite(b.server);
      const { code, report } = await attachJson(b.server);
      const codesSeen = codes(report);
      expect(codesSeen).toContain('subprocess-blocked');
      expect(codesSeen).not.toContain('server-write-blocked');
      expect(codesSeen).not.toContain('host-not-reading');
      const f = report.findings.find((x) => x.code === 'subprocess-blocked');
      expect(f?.evidence).toMatchObject({
        pid: child,
        syscall: { name: 'write', fd: 1 },
        server: { pid: b.server },
      });
      expect(f?.message).toContain(
        `whose read end the server (pid ${b.server}) holds and does not read`,
      );
      expect(report.attach.tree.map((p) => p.pid)).toContain(child);
      expect(code).toBe(1);
    },
  );

  it('a server on CPU the whole window and writing nothing: server-busy (a warning)', {
    timeout: 40_000,
  }, async () => {
    const d = demoCommand('cpu-bound');
    const h = await startHost(
      process.execPath,
      HOST_JS,
      'block',
      [d.command, ...d.args],
      ['--call', 'crunch', '--args', JSON.stringify({ ms: 30_000 })],
    );
    await onCpu(h.server);
    const { code, report } = await attachJson(h.server, 2000);
    const busy = report.findings.find((f) => f.code === 'server-busy');
    expect(busy, JSON.stringify(report.findings)).toBeDefined();
    expect(busy?.level).toBe('warn');
    expect(busy?.evidence?.pid).toBe(h.server);
    expect(codes(report)).not.toContain('server-write-blocked');
    expect(report.findings.filter((f) => f.level === 'error')).toEqual([]);
    expect(code).toBe(0);
  });

  it('the text report names the block, the host and the stdio table', {
    timeout: 40_000,
  }, async () => {
    const h = await startHost(process.execPath, HOST_JS, 'block', blockingDemo(), [
      '--args',
      JSON.stringify({ bytes: FOUR_MIB }),
    ]);
    await blockedInWrite(h.server);
    const r = await runCli(['attach', String(h.server), '--watch-ms', '1000']);
    expect(r.stdout).toContain(`Host: pid ${h.host}`);
    expect(r.stdout).toMatch(/\n {2}1 {2}socket +socket:\[\d+\] +\d+ /);
    expect(r.stdout).toContain('[error] server-write-blocked');
    expect(r.stdout).toContain('[error] host-not-reading');
    expect(r.code).toBe(1);
  });

  it('a pid that does not exist: exit 2 and a clear message, nothing on stdout', async () => {
    const r = await runCli(['attach', '4194303', '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such process: 4194303/);
    expect(r.stdout).toBe('');
    const bad = await runCli(['attach', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a process id/);
    const none = await runCli(['attach']);
    expect(none.code).toBe(2);
  });

  it('--list finds a server whose parent is named like a host', { timeout: 40_000 }, async () => {
    // The host runs as `claude` (a symlink to node): its argv[0] names it Claude Code.
    const claude = path.join(tmp, 'claude');
    symlinkSync(process.execPath, claude);
    const server = python ? ['python3', HEALTHY_PY] : blockingDemo();
    const h = await startHost(claude, HOST_JS, 'read', server);
    const r = await runCli(['attach', '--list', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Candidate[];
    const found = list.find((c) => c.pid === h.server);
    expect(found, JSON.stringify(list, null, 2)).toBeDefined();
    expect(found).toMatchObject({ ppid: h.host });
    expect(found?.why.join(' ')).toMatch(/Claude Code/);
    expect(list.some((c) => c.pid === h.host)).toBe(false);
    const text = await runCli(['attach', '--list']);
    expect(text.stdout).toContain(String(h.server));
  });

  it.runIf(process.getuid?.() === 0)(
    'as another user: the syscall is not readable, and the report says what that costs',
    {
      timeout: 40_000,
    },
    async () => {
      const h = await startHost(process.execPath, HOST_JS, 'block', blockingDemo(), [
        '--args',
        JSON.stringify({ bytes: FOUR_MIB }),
      ]);
      await blockedInWrite(h.server);
      const { code, report } = await attachJson(h.server, 1000, 65534);
      expect(report.attach.syscallReadable).toBe(false);
      expect(report.attach.note).toMatch(/syscall not readable without ptrace rights/);
      expect(report.attach.note).toMatch(/cannot be proven, only inferred from state and wchan/);
      // Nothing it cannot see is claimed as proven.
      for (const f of report.findings) expect(f.evidence?.proven).not.toBe(true);
      expect(code).toBe(report.findings.some((f) => f.level === 'error') ? 1 : 0);
    },
  );
});
