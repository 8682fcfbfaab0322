/**
 * `npm start` where Electron cannot run (issue 4): scripts/start.mjs must say why in one line,
 * start browser mode, print its URL line, and on SIGTERM stop cleanly leaving nothing running.
 * The Electron binary is made unavailable explicitly (ELECTRON_OVERRIDE_DIST_PATH at an empty
 * folder, and no DISPLAY), so the test means the same on a desktop with Electron downloaded.
 * On Linux, a stand-in shell script plays an Electron that crashes at startup (→ fallback with
 * its first error line) and one that runs (→ kept, SIGTERM forwarded, its status returned).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { descendants, stillRunning } from '../fixtures/processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START = path.join(ROOT, 'scripts', 'start.mjs');
const BUILT = existsSync(path.join(ROOT, 'dist', 'electron', 'main', 'launcher.js'));
const URL_LINE =
  /^Pipescope browser mode: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=[A-Za-z0-9_-]{43,})$/m;

const children: ChildProcess[] = [];
const tmpDirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null && c.pid) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const d of tmpDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An environment with no usable Electron: an empty dist folder and, on Linux, no display. */
function startEnv(fakeElectron?: string): NodeJS.ProcessEnv {
  const dist = mkdtempSync(path.join(tmpdir(), 'pipescope-no-electron-'));
  tmpDirs.push(dist);
  const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  if (fakeElectron !== undefined) {
    // A stand-in binary (sh script) where the electron package would put it, and a display.
    const bin = path.join(dist, 'electron');
    writeFileSync(bin, `#!/bin/sh\n${fakeElectron}\n`);
    chmodSync(bin, 0o755);
    env.DISPLAY = ':99';
  }
  return env;
}

function collect(child: ChildProcess): { out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => {
    stdout += b.toString('utf8');
  });
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
  });
  return { out: () => stdout, err: () => stderr };
}

/** Starts scripts/start.mjs in its own process group, so "nothing left running" is checkable. */
function launch(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [START, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return { child, io: collect(child) };
}

function waitFor(read: () => string, pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = setInterval(() => {
      const m = read().match(pattern);
      if (m) {
        clearInterval(tick);
        resolve(m);
      } else if (Date.now() - started > ms) {
        clearInterval(tick);
        reject(new Error(`no ${pattern} within ${ms} ms; output so far:\n${read()}`));
      }
    }, 25);
  });
}

function exited(
  child: ChildProcess,
  ms: number,
): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!BUILT)('npm start without an Electron runtime', () => {
  it('says why in one line, serves browser mode, and stops cleanly on SIGTERM', async () => {
    const { child, io } = launch(['--no-open'], startEnv());
    const match = await waitFor(io.out, URL_LINE, 10_000);
    const lines = io.out().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Electron .+; starting browser mode instead$/);
    expect(lines[1]).toBe(match[0]);

    // The server is really there, and it wants the token.
    const page = await fetch(match[1]);
    expect(page.status).toBe(200);
    const noToken = await fetch(`http://127.0.0.1:${match[2]}/`);
    expect(noToken.status).toBe(401);

    const pgid = child.pid!;
    const done = exited(child, 10_000);
    process.kill(child.pid!, 'SIGTERM');
    expect(await done).toEqual({ code: 0, signal: null });
    expect(io.err()).not.toMatch(/internal error|Error:/);
    await waitFor(() => (groupAlive(pgid) ? '' : 'gone'), /gone/, 3000);
    await expect(fetch(match[1])).rejects.toThrow();
  });

  it.runIf(process.platform === 'linux')(
    'SIGTERM to `npm start` itself (npm runs it under a shell) leaves nothing running',
    async () => {
      const npm = spawn('npm', ['start', '--', '--no-electron', '--no-open'], {
        cwd: ROOT,
        env: startEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      children.push(npm);
      const io = collect(npm);
      const match = await waitFor(io.out, URL_LINE, 60_000);
      // A server started through the app, as a user would.
      const ws = new WebSocket(
        `ws://127.0.0.1:${match[2]}/ws?token=${match[1].split('token=')[1]}`,
        {
          headers: { Origin: `http://127.0.0.1:${match[2]}` },
        },
      );
      await new Promise((r) => ws.once('open', r));
      const started = new Promise<void>((resolve) =>
        ws.on('message', (d) => {
          if ((JSON.parse(String(d)) as { id?: number }).id === 1) resolve();
        }),
      );
      ws.send(
        JSON.stringify({ id: 1, channel: 'session:start', payload: { demo: { id: 'healthy' } } }),
      );
      await started;
      ws.close();
      const below = descendants(npm.pid as number).map((p) => p.pid);
      expect(below.length).toBeGreaterThanOrEqual(3); // the shell, start.mjs, the demo server
      const done = exited(npm, 15_000);
      process.kill(npm.pid as number, 'SIGTERM'); // npm alone, not its group
      await done;
      await waitFor(() => (stillRunning(below).length === 0 ? 'gone' : ''), /gone/, 10_000);
    },
    90_000,
  );

  it('goes straight to browser mode with --no-electron (no reason line)', async () => {
    const { child, io } = launch(['--no-electron', '--no-open'], startEnv());
    await waitFor(io.out, URL_LINE, 10_000);
    expect(io.out().trimEnd().split('\n')).toHaveLength(1);
    const done = exited(child, 10_000);
    process.kill(child.pid!, 'SIGTERM');
    expect((await done).code).toBe(0);
  });

  it('rejects unknown options with usage and exit 2', async () => {
    const { child, io } = launch(['--frobnicate'], startEnv());
    expect((await exited(child, 10_000)).code).toBe(2);
    expect(io.err()).toMatch(/unknown option --frobnicate/);
  });
});

describe.skipIf(!BUILT || process.platform !== 'linux')(
  'npm start with an Electron that misbehaves',
  () => {
    it('falls back when Electron dies at startup, with its first error line as the reason', async () => {
      const crash =
        'echo "[1:FATAL:setuid_sandbox_host.cc] The SUID sandbox helper binary was found, but is not configured correctly." >&2\nexit 133';
      const { child, io } = launch(['--no-open'], startEnv(crash));
      await waitFor(io.out, URL_LINE, 10_000);
      const [reason] = io.out().split('\n');
      expect(reason).toMatch(
        /^Electron exited at startup \(code 133: .*SUID sandbox helper.*\); starting browser mode instead$/,
      );
      expect(io.err()).not.toContain('SUID'); // held back, not dumped: one line only
      const done = exited(child, 10_000);
      process.kill(child.pid!, 'SIGTERM');
      expect((await done).code).toBe(0);
    });

    it('keeps a started Electron, forwards SIGTERM to it and exits with its status', async () => {
      const app =
        'echo "fake electron on $1"\ntrap \'echo "fake electron quits"; exit 0\' TERM\nwhile :; do sleep 0.05; done';
      const { child, io } = launch([], startEnv(app));
      await waitFor(io.out, /fake electron on /, 10_000);
      expect(io.out()).toContain(`fake electron on ${ROOT.replace(/\/$/, '')}`);
      await new Promise((r) => setTimeout(r, 4500)); // past the startup window
      expect(io.out()).not.toMatch(/browser mode/);
      const done = exited(child, 10_000);
      process.kill(child.pid!, 'SIGTERM');
      expect(await done).toEqual({ code: 0, signal: null });
      expect(io.out()).toContain('fake electron quits');
      await waitFor(() => (groupAlive(child.pid!) ? '' : 'gone'), /gone/, 3000);
    });
  },
);

if (!BUILT) console.warn('start-fallback: dist/ is not built; run `npm run build` (npm test does)');
