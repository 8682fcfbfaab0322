/**
 * Process lifecycle on real processes (HARDENING.md 16-22, issue 2 "Bad input gets a clear
 * error"): the stop ladder ends servers that ignore EOF and SIGTERM and reaches grandchildren
 * through the process group; spawn failures are clear errors, never hangs; the CLI gives one
 * line and exit 2, or a report with findings; the parent's secrets do not reach the child.
 */

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { SessionError } from '../../dist/electron/engine/session/types.js';
import { defaultEnvNames } from '../../dist/electron/engine/transport/child-env.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import { groupMembers, running } from '../fixtures/processes.js';
import {
  collectStderr,
  expectByteInvariant,
  expectGroupGone,
  expectNothingLeftBehind,
  expectReportByteInvariant,
  findingCodes,
  REPORT_KEYS,
  runCli,
  startDemo,
  startSession,
  stopAllSessions,
  waitFor,
  withTimeout,
} from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-lifecycle-'));
afterEach(stopAllSessions);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A stack trace line, as Node prints them. */
const STACK = /^\s+at /m;

describe('stop ladder', () => {
  it('ignores-sigterm: stdin close and SIGTERM ignored, SIGKILL ends it', async () => {
    const session = await startDemo('ignores-sigterm');
    const stderr = collectStderr(session);
    await stderr.waitFor('[ignores-sigterm] ready', 5000);
    const pid = session.pid ?? -1;
    const started = Date.now();
    await withTimeout(session.stop(), 5000, 'stop');
    const took = Date.now() - started;
    expect(session.exit?.signal).toBe('SIGKILL');
    expect(session.exit?.code).toBeNull();
    // Both polite rungs were tried (and ignored) before the last one, each wait bounded.
    expect(stderr.text()).toContain('stdin closed, staying alive anyway');
    expect(stderr.text()).toContain('SIGTERM received, ignoring it');
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(3000);
    expect(running(pid)).toBe(false);
    await expectGroupGone(pid);
    expect(session.findings.has('server-exited')).toBe(false);
  });

  it('ignores-sigterm --grandchild=true: the grandchild holding stdout dies with the group', async () => {
    const session = await startDemo('ignores-sigterm', { grandchild: 'true' });
    const stderr = collectStderr(session);
    const line = await stderr.waitFor(/grandchild sleep 300 started \(pid \d+\)/, 5000);
    const grandchild = Number(/grandchild sleep 300 started \(pid (\d+)\)/.exec(line)?.[1]);
    const pid = session.pid ?? -1;
    expect(groupMembers(pid).map((p) => p.pid)).toEqual(expect.arrayContaining([pid, grandchild]));

    await withTimeout(session.stop(), 6000, 'stop');
    expect(session.exit?.signal).toBe('SIGKILL');
    await expectGroupGone(pid);
    expect(running(grandchild)).toBe(false);
    expect(session.counters()?.stdoutEnded).toBe(true);
  });

  it("sh -c 'sleep 300 & wait' leaves nothing behind", async () => {
    const session = startSession({ command: 'sh', args: ['-c', 'sleep 300 & wait'] });
    await withTimeout(session.whenStarted(), 5000, 'start');
    const pid = session.pid ?? -1;
    await waitFor(() => groupMembers(pid).length >= 2, 3000, 'sh and its sleep');
    await withTimeout(session.stop(), 5000, 'stop');
    expect(session.exit?.signal).toBe('SIGTERM');
    await expectGroupGone(pid);
  });

  it('a stdout held open outside the group still ends the line in progress as partial', async () => {
    const session = startSession({
      command: 'sh',
      args: ['-c', `setsid sleep 3 & printf '{"jsonrpc":"2.0","par'; exit 0`],
    });
    await session.whenStarted();
    await waitFor(() => session.exit !== null, 5000, 'the shell to exit');
    await session.stop();
    const c = session.counters();
    expect(c?.partialBytesAtEof).toBe(21);
    expectByteInvariant(session);
    expect(findingCodes(session)).toContain('truncated-at-exit');
  });

  it('a grandchild that let go of the pipes is stopped with the group, whatever the leader did', async () => {
    // The leader (node, exec'd by sh) exits on stdin EOF; its background sleep keeps running
    // in the group with its stdio on /dev/null, so nothing ties it to our pipes.
    const healthy = demoCommand('healthy');
    const session = startSession({
      command: 'sh',
      args: [
        '-c',
        `sleep 309 </dev/null >/dev/null 2>&1 & echo "bg $!" >&2; exec ${healthy.command} ${healthy.args[0]}`,
      ],
    });
    await session.whenStarted();
    await waitFor(() => /bg \d+/.test(session.stderr.text()), 5000, 'the background pid');
    const bg = Number(/bg (\d+)/.exec(session.stderr.text())?.[1]);
    expect(running(bg)).toBe(true);
    await session.stop();
    expect(running(bg)).toBe(false);
    expect(groupMembers(session.pid ?? -1)).toEqual([]);
    expect(findingCodes(session)).not.toContain('processes-left');
  });

  it('a process that left the group (setsid) and holds stdout is named in processes-left and killed', async () => {
    const healthy = demoCommand('healthy');
    const session = startSession({
      command: 'sh',
      args: [
        '-c',
        `setsid sh -c 'echo "escaped $$" >&2; trap "" TERM; exec sleep 313' & exec ${healthy.command} ${healthy.args[0]}`,
      ],
    });
    await session.whenStarted();
    await waitFor(() => /escaped \d+/.test(session.stderr.text()), 5000, 'the escaped pid');
    const escaped = Number(/escaped (\d+)/.exec(session.stderr.text())?.[1]);
    expect(running(escaped)).toBe(true);
    await withTimeout(session.stop(), 10_000, 'the stop');
    expect(running(escaped)).toBe(false);
    const left = session.findings.all().find((f) => f.code === 'processes-left');
    expect(left?.level).toBe('warn');
    expect(left?.message).toContain(`${escaped} sleep 313`);
    expect(left?.message).toMatch(/outside its group, holding its stdio; killed/);
  });
});

describe('spawn errors are clear, fast errors', () => {
  async function startError(command: string): Promise<{ error: unknown; ms: number }> {
    const session = startSession({ command });
    const started = Date.now();
    const error = await withTimeout(
      session.whenStarted().then(
        () => null,
        (e: unknown) => e,
      ),
      2000,
      'the spawn error',
    );
    expect(session.state).toBe('failed');
    await withTimeout(session.stop(), 2000, 'stop after a failed spawn');
    return { error, ms: Date.now() - started };
  }

  it('ENOENT: whenStarted rejects with code ENOENT', async () => {
    const { error, ms } = await startError('/nonexistent/pipescope-no-such-server');
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe('ENOENT');
    expect((error as SessionError).message).toMatch(/command not found \(ENOENT\)/);
    expect(ms).toBeLessThan(1000);
  });

  it('EACCES: a file that is not executable', async () => {
    const file = path.join(tmp, 'not-executable.sh');
    writeFileSync(file, '#!/bin/sh\necho hi\n');
    chmodSync(file, 0o644);
    const { error, ms } = await startError(file);
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe('EACCES');
    expect((error as SessionError).message).toMatch(/permission denied \(EACCES\)/);
    expect(ms).toBeLessThan(1000);
  });

  it('a server that cannot start leaves no timer running and no snapshots flowing', async () => {
    const manager = new SessionManager();
    const snapshots: HostEvent[] = [];
    const off = manager.subscribe((e) => {
      if (e.type === 'snapshot') snapshots.push(e);
    });
    const started = await manager.handle('session:start', {
      server: { command: '/nonexistent/pipescope-x' },
    });
    expect(started.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // let the failure settle
    const settled = snapshots.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(snapshots.length - settled).toBe(0);
    off();
    await manager.stopAll();
  });
});

describe('CLI: bad input gets one line and exit 2, or a report with findings', () => {
  function expectOneLineError(stderr: string, pattern: RegExp): void {
    const lines = stderr.split('\n').filter((l) => l.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^pipescope: /);
    expect(lines[0]).toMatch(pattern);
    expect(stderr).not.toMatch(STACK);
  }

  it('missing command → exit 2, one line, no stack trace', async () => {
    const r = await runCli(['probe', '--', '/nonexistent/pipescope-no-such-server']);
    expect(r.code).toBe(2);
    expectOneLineError(r.stderr, /ENOENT/);
    expect(r.ms).toBeLessThan(5000);
  });

  it('bad --args JSON → exit 2, one line', async () => {
    const r = await runCli(['probe', '--call', 'echo', '--args', '{bad', '--', 'node', 'x.js']);
    expect(r.code).toBe(2);
    expectOneLineError(r.stderr, /--args is not valid JSON/);
    expect(r.stdout).toBe('');
  });

  it('server exiting at once → report with server-exited, exit 1', async () => {
    const r = await runCli(['probe', '--json', '--', process.execPath, '-e', 'process.exit(0)']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
    expect(report.findings.map((f) => f.code)).toContain('server-exited');
    expect(report.server.exit).toEqual({ code: 0, signal: null });
    expect(report.metrics.processExits).toBe(1);
    expectReportByteInvariant(report);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.ms).toBeLessThan(5000);
  });

  it('server never answers initialize → ends inside --timeout-ms plus the ladder', async () => {
    const r = await runCli(['probe', '--json', '--timeout-ms', '1500', '--', 'sleep', '30']);
    expect(r.code).toBe(1);
    // 1.5 s budget + ladder (stdin close 1 s, then SIGTERM ends sleep) + Node start-up.
    expect(r.ms).toBeLessThan(1500 + 2000 + 1500);
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(report.findings.map((f) => f.code)).toContain('request-timed-out');
    expect(report.requests).toEqual([
      expect.objectContaining({ id: 1, method: 'initialize', status: 'timed-out' }),
    ]);
    expect(report.metrics.cancellationsSent).toBe(0);
    expect(report.server.exit?.signal).toBe('SIGTERM');
    expect(report.server.pid).not.toBeNull();
    expect(running(report.server.pid ?? -1)).toBe(false);
    expectReportByteInvariant(report);
  });
});

describe('child environment', () => {
  it('a canary in the parent does not reach the child; configured env does', async () => {
    const saved = process.env.PIPESCOPE_CANARY;
    process.env.PIPESCOPE_CANARY = 's3cret';
    try {
      const session = startSession({
        command: process.execPath,
        args: ['-e', 'process.stderr.write("ENV " + JSON.stringify(process.env) + "\\n")'],
        env: { PIPESCOPE_CONFIGURED: 'configured-value' },
      });
      const stderr = collectStderr(session);
      await withTimeout(session.whenStarted(), 5000, 'start');
      const line = await stderr.waitFor(/ENV \{.*\}\n/, 5000);
      const env = JSON.parse(/ENV (\{.*\})\n/.exec(line)?.[1] ?? '{}') as Record<string, string>;
      expect(env.PIPESCOPE_CONFIGURED).toBe('configured-value');
      expect(env).not.toHaveProperty('PIPESCOPE_CANARY');
      expect(stderr.text()).not.toContain('s3cret');
      // Nothing beyond the minimal default and what the config names.
      const allowed = new Set([...defaultEnvNames(), 'PIPESCOPE_CONFIGURED']);
      expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.PIPESCOPE_CANARY;
      else process.env.PIPESCOPE_CANARY = saved;
    }
  });

  it('leaves no server, process group or child process behind', () => {
    expectNothingLeftBehind();
  });
});
