/**
 * `pipescope web` as a process: exactly one line on stdout when ready, the page served with
 * its token, a running session stopped through the ladder on SIGTERM, exit 0; usage errors are
 * one line on stderr and exit 2.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../dist/shared/session-info.js';
import { groupMembers, running } from '../fixtures/processes.js';
import { CLI, REPO, withTimeout } from './helpers.js';
import { http, upgrade } from './web-helpers.js';

function spawnWeb(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, 'web', ...args], { cwd: REPO, stdio: 'pipe' });
}

function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  let out = '';
  const p = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) =>
      reject(new Error(`pipescope web exited (${code}) before its line`)),
    );
  });
  return withTimeout(p, 10_000, 'the browser-mode line');
}

function exited(child: ChildProcessWithoutNullStreams, ms: number): Promise<number | null> {
  const p = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return withTimeout(p, ms, 'pipescope web to exit');
}

describe('pipescope web (the command)', () => {
  it('prints exactly one line, serves it, stops every session on SIGTERM and exits 0', async () => {
    const child = spawnWeb(['--port', '0', '--no-open']);
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    try {
      const line = await firstLine(child);
      child.stdout.on('data', (s: string) => {
        stdout += s;
      });
      expect(line).toMatch(
        /^Pipescope browser mode: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43,}$/,
      );
      const url = new URL(line.slice('Pipescope browser mode: '.length));
      const port = Number(url.port);
      const token = url.searchParams.get('token') ?? '';
      const page = await http(port, { target: `${url.pathname}${url.search}` });
      expect(page.status).toBe(200);
      expect(page.body).toContain('<div id="root">');

      // A session running when the signal comes is stopped through the ladder.
      const r = await upgrade(port, { target: `/ws?token=${token}`, origin: url.origin });
      if (!('ws' in r)) throw new Error(`upgrade refused with ${r.status}`);
      const client = r.client;
      const started = await client.call('session:start', { demo: { id: 'healthy', knobs: {} } });
      if (!started.ok) throw new Error(started.error.message);
      const pid = (started.value as SessionInfo).pid ?? -1;
      expect(running(pid)).toBe(true);

      child.kill('SIGTERM');
      expect(await exited(child, 8000)).toBe(0);
      expect(stdout).toBe('');
      expect(stderr).toContain('SIGTERM');
      expect(running(pid)).toBe(false);
      expect(groupMembers(pid)).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a non-loopback --host without --allow-remote is a usage error (exit 2, one line)', async () => {
    const child = spawnWeb(['--host', '0.0.0.0', '--no-open']);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    expect(await exited(child, 8000)).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('--allow-remote');
    expect(running(child.pid ?? -1)).toBe(false);
  });
});
