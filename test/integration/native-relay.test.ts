/**
 * The tap's native relay (electron/tap/native/relay.c) on real processes: that it is built
 * where it can be, that it compiles without a warning, that it hides nothing under backpressure
 * (a host that never reads lets the server write about as far as it would without the tap: the
 * server blocks, the tap does not buffer), and that its failure is said and ends the server.
 * The byte-exactness, signals, exits and observation of both relays: tap-relay, tap-edges and
 * tap-engine, which run once with each.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, MiB, REPO } from './helpers.js';
import { NATIVE_RELAY, RELAY_SOURCES } from './tap-relays.js';

const running = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  running.clear();
});

const hasCc = process.platform === 'linux' && spawnSync('cc', ['--version']).status === 0;

/** A server that writes 16 MiB to stdout as fast as the pipe takes it and says on stderr how
 *  much the kernel has taken so far (each write's callback). */
const WRITER = `
const chunk = Buffer.alloc(64 * 1024, 120);
let taken = 0;
const say = () => process.stderr.write('taken ' + taken + '\\n');
let n = 0;
const more = () => {
  while (n < 256) {
    n++;
    const ok = process.stdout.write(chunk, () => { taken += chunk.length; say(); });
    if (!ok) return process.stdout.once('drain', more);
  }
};
more();
setInterval(() => {}, 1000);
`;

function start(
  argv: string[],
  env: Record<string, string> = {},
  detached = false,
): ChildProcessWithoutNullStreams {
  const dir = mkdtempSync(path.join(tmpdir(), 'native-relay-'));
  const c = spawn(argv[0] as string, argv.slice(1), {
    env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...env },
    detached,
  });
  running.add(c);
  return c;
}

/** Whether `pid` runs (not a zombie, not reaped). */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

/** The tap's native relay process (a child of the tap), once it runs. */
async function relayOf(tap: ChildProcessWithoutNullStreams): Promise<number> {
  for (let i = 0; i < 200; i++) {
    try {
      const children = readFileSync(`/proc/${tap.pid}/task/${tap.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .map(Number);
      const relay = children.find((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pipescope-relay'),
      );
      if (relay) return relay;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no native relay under the tap');
}

/** How far the server got while nobody read its output: its last "taken" once it stopped
 *  growing for `quietMs` (and it has said one: a server slow to start is waited for). */
function takenWhenBlocked(c: ChildProcessWithoutNullStreams, quietMs = 700): Promise<number> {
  return new Promise((resolve, reject) => {
    let last = 0;
    let timer = setTimeout(() => reject(new Error('the server never wrote')), 20_000);
    c.stderr.on('data', (d: Buffer) => {
      const m = [...d.toString().matchAll(/taken (\d+)/g)].pop();
      if (!m) return;
      last = Number(m[1]);
      clearTimeout(timer);
      timer = setTimeout(() => resolve(last), quietMs);
    });
    c.once('exit', (code) => reject(new Error(`exited (${code}) while it should block`)));
  });
}

describe('the native relay', () => {
  it.runIf(hasCc)('is built where a C compiler is, and compiles without a warning', () => {
    expect(readdirSync(path.dirname(NATIVE_RELAY))).toContain('pipescope-relay');
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'relay-cc-')), 'relay');
    const r = spawnSync(
      'cc',
      ['-O2', '-std=gnu11', '-pthread', '-Wall', '-Wextra', '-Werror', '-o', out, ...RELAY_SOURCES],
      { cwd: REPO, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    rmSync(path.dirname(out), { recursive: true, force: true });
  });

  it.runIf(process.platform === 'linux')(
    'a host that never reads: the server blocks about where it would without the tap',
    async () => {
      const server = [process.execPath, '-e', WRITER];
      const direct = start(server);
      const native = start([process.execPath, CLI, 'tap', '--no-publish', '--', ...server]);
      const node = start([process.execPath, CLI, 'tap', '--no-publish', '--', ...server], {
        PIPESCOPE_TAP_RELAY: 'node',
      });
      // Nobody reads stdout; stderr is read (the server's count goes through the tap's stderr).
      const [d, n, j] = await Promise.all([direct, native, node].map((c) => takenWhenBlocked(c)));
      // Each wrote, and blocked long before its 16 MiB.
      for (const taken of [d, n, j]) {
        expect(taken).toBeGreaterThan(0);
        expect(taken).toBeLessThan(8 * MiB);
      }
      // The tap adds its own pipe (64 KiB) and one more socket's buffer, nothing that grows.
      expect(n - d, `direct ${d}, native ${n}`).toBeLessThan(MiB);
      expect(j - d, `direct ${d}, node ${j}`).toBeLessThan(2 * MiB);
    },
    30_000,
  );

  it.runIf(process.platform === 'linux')(
    "signals sent to the host's process group do not end the relay (USR2: a dump; USR1: the server's)",
    async () => {
      // The host's group holds the tap and its relay (the server has a group of its own): a
      // signal to the group reaches the relay too, and only the tap may act on it.
      const c = start(
        [process.execPath, CLI, 'tap', '--no-publish', '--', 'sleep', '30'],
        {},
        true,
      );
      let err = '';
      c.stderr.on('data', (d: Buffer) => {
        err += d.toString();
      });
      const relay = await relayOf(c);
      // The tap's own handlers are installed just after the relay starts: not before them.
      await new Promise((r) => setTimeout(r, 700));
      const group = c.pid as number;
      process.kill(-group, 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 700));
      expect(alive(relay), 'the relay after SIGUSR2').toBe(true);
      process.kill(-group, 'SIGUSR1');
      const [code] = await new Promise<[number | null, string | null]>((r) =>
        c.once('close', (cd, sg) => r([cd, sg])),
      );
      expect(err).not.toContain('the native relay failed');
      expect(code).toBe(138); // sleep died of the SIGUSR1 the tap forwarded
    },
    30_000,
  );

  it.runIf(process.platform === 'linux')(
    'a host that closes its stdout: the server, blocked writing, gets EPIPE as without the tap',
    async () => {
      // The host reads a little, then closes its pipe while the server is blocked in write()
      // with more bytes waiting in its socket: its write must fail with EPIPE (as a pipe's
      // would), not ECONNRESET (a socket closed with bytes unread).
      const dir = mkdtempSync(path.join(tmpdir(), 'native-relay-'));
      const server = `const b = Buffer.alloc(4096, 120); try { for (;;) require('fs').writeSync(1, b); } catch (e) { require('fs').writeSync(2, e.code + '\\n'); process.exit(5); }`;
      const node = JSON.stringify(process.execPath);
      const host = '| { head -c 10 >/dev/null; sleep 0.5; }';
      const run = (cmd: string, err: string): Promise<string> =>
        new Promise((resolve) => {
          const c = spawn('sh', ['-c', `${cmd} </dev/null 2>${path.join(dir, err)} ${host}`], {
            env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir },
          });
          running.add(c);
          c.on('close', () => resolve(readFileSync(path.join(dir, err), 'utf8')));
        });
      const direct = await run(`${node} -e "${server}"`, 'direct.txt');
      const tapped = await run(
        `${node} ${JSON.stringify(CLI)} tap --no-publish -- ${node} -e "${server}"`,
        'tapped.txt',
      );
      expect(direct.split('\n')[0]).toBe('EPIPE');
      expect(tapped.split('\n')[0]).toBe('EPIPE');
    },
    30_000,
  );

  it.runIf(process.platform === 'linux')(
    'a native relay that dies mid-session is said, and ends the server (no orphan)',
    async () => {
      const c = start([
        process.execPath,
        CLI,
        'tap',
        '--no-publish',
        '--',
        process.execPath,
        '-e',
        'process.stdout.write("hello\\n"); setInterval(() => {}, 1000)',
      ]);
      let err = '';
      c.stderr.on('data', (d: Buffer) => {
        err += d.toString();
      });
      await new Promise<void>((resolve) => c.stdout.once('data', () => resolve()));
      const children = readFileSync(`/proc/${c.pid}/task/${c.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .map(Number);
      const relayPid = children.find((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pipescope-relay'),
      );
      const serverPid = children.find((pid) => pid !== relayPid);
      expect(relayPid, `children ${children}`).toBeGreaterThan(0);
      process.kill(relayPid as number, 'SIGKILL');
      const [code, signal] = await new Promise<[number | null, string | null]>((r) =>
        c.once('close', (cd, sg) => r([cd, sg])),
      );
      expect(err).toContain('the native relay failed');
      // The server got the SIGTERM, and the tap ended as it did.
      expect(signal === 'SIGTERM' || code === 143, `code ${code} signal ${signal}`).toBe(true);
      expect(() => process.kill(serverPid as number, 0)).toThrow();
    },
    30_000,
  );
});
