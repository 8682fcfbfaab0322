/**
 * `pipescope tap` as a host sees it: this test is the host. It starts the real CLI (bin →
 * dist/electron/tap) around a byte-level server (fixtures/servers/tap-echo.mjs), writes hostile
 * bytes in random chunks, reads everything back, and compares hashes of what each side sent with
 * what the other received. Also: env, cwd and argv passed through, exit codes and signals passed
 * back, nothing of the tap's own on stdout, with no app listening.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, MiB, REPO } from './helpers.js';
import { TAP_RELAYS } from './tap-relays.js';

/** The relay the running suite uses (its environment). */
let relayEnv: Record<string, string> = {};

const ECHO = path.join(REPO, 'test/fixtures/servers/tap-echo.mjs');

interface HostRun {
  sentSha: string;
  sentBytes: number;
  receivedSha: string;
  receivedBytes: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  report: {
    stdinSha: string;
    stdinBytes: number;
    stdoutSha: string;
    stdoutBytes: number;
    env: { TAP_CANARY: string | null };
    cwd: string;
    argv: string[];
  } | null;
}

/** The bytes a host writes: JSON lines, CRLF, a UTF-8 character cut in two, invalid UTF-8. */
function hostPayload(lines: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < lines; i++)
    parts.push(Buffer.from(`{"jsonrpc":"2.0","id":${i + 10},"method":"tools/call","params":{}}\n`));
  parts.push(Buffer.from('{"jsonrpc":"2.0","method":"notifications/x"}\r\n'));
  parts.push(Buffer.from([0xe2, 0x82]), Buffer.from([0xac, 0x0a, 0xff, 0xfe, 0x0a]));
  return Buffer.concat(parts);
}

function runHost(o: {
  tapArgs?: string[];
  serverArgs: string[];
  payload: Buffer;
  cuts: number[];
  env?: Record<string, string>;
  cwd?: string;
  onChild?: (c: ChildProcess) => void;
}): Promise<HostRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tap-relay-'));
  const report = path.join(dir, 'report.json');
  const child = spawn(
    process.execPath,
    // Publishing on, to a folder where no app listens: "with no app, nothing changes".
    [
      CLI,
      'tap',
      ...(o.tapArgs ?? []),
      '--',
      process.execPath,
      ECHO,
      ...o.serverArgs,
      '--report',
      report,
    ],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: o.cwd ?? dir,
      env: {
        ...process.env,
        PIPESCOPE_TAP_DIR: dir,
        PIPESCOPE_TRACE_DIR: dir,
        ...relayEnv,
        ...o.env,
      },
    },
  );
  o.onChild?.(child);
  const received = createHash('sha256');
  let receivedBytes = 0;
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    received.update(d);
    receivedBytes += d.length;
  });
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 64 * 1024) stderr += d.toString();
  });
  // The payload in the given cuts, each write waiting for the one before.
  let at = 0;
  const writeAll = async (): Promise<void> => {
    for (const cut of [...o.cuts, o.payload.length]) {
      const end = Math.min(o.payload.length, Math.max(at, cut));
      if (end > at) {
        const piece = o.payload.subarray(at, end);
        at = end;
        if (!child.stdin.write(piece)) await new Promise((r) => child.stdin.once('drain', r));
      }
    }
    child.stdin.end();
  };
  void writeAll();
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      let r: HostRun['report'] = null;
      try {
        r = JSON.parse(readFileSync(report, 'utf8'));
      } catch {
        r = null;
      }
      resolve({
        sentSha: createHash('sha256').update(o.payload).digest('hex'),
        sentBytes: o.payload.length,
        receivedSha: received.digest('hex'),
        receivedBytes,
        code,
        signal,
        stderr,
        report: r,
      });
    });
  });
}

describe.each(TAP_RELAYS)('tap ($name relay): a byte-exact relay', (relay) => {
  beforeAll(() => {
    relayEnv = relay.env;
  });

  it('hostile bytes both ways, in random cuts, equal on both sides (hashes)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 4000 }), { maxLength: 12 }),
        async (seed, lines, cuts) => {
          const payload = hostPayload(lines);
          const run = await runHost({
            serverArgs: ['--out-seed', String(seed)],
            payload,
            cuts: cuts.sort((a, b) => a - b),
          });
          expect(run.code).toBe(0);
          expect(run.report).not.toBeNull();
          // Host → server: what the host wrote is what the server read.
          expect(run.report?.stdinBytes).toBe(run.sentBytes);
          expect(run.report?.stdinSha).toBe(run.sentSha);
          // Server → host: what the server wrote is what the host read, nothing added.
          expect(run.receivedBytes).toBe(run.report?.stdoutBytes);
          expect(run.receivedSha).toBe(run.report?.stdoutSha);
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);

  it('a 64 MiB frame, a host that reads it, and the same bytes arrive', async () => {
    const run = await runHost({
      serverArgs: ['--big-bytes', String(64 * MiB)],
      payload: hostPayload(3),
      cuts: [],
    });
    expect(run.code).toBe(0);
    expect(run.receivedBytes).toBe(run.report?.stdoutBytes);
    expect(run.receivedBytes).toBeGreaterThan(64 * MiB);
    expect(run.receivedSha).toBe(run.report?.stdoutSha);
  }, 60_000);

  it("the host's environment, cwd and argv reach the server unchanged", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'tap-cwd-'));
    const run = await runHost({
      serverArgs: ['--out-seed', '7', 'a b', '$HOME', '--', ';|&'],
      payload: hostPayload(1),
      cuts: [],
      cwd,
      env: { TAP_CANARY: 'canary-7f3a' },
    });
    expect(run.report?.env.TAP_CANARY).toBe('canary-7f3a');
    expect(run.report?.cwd).toBe(cwd);
    expect(run.report?.argv.slice(0, 6)).toEqual(['--out-seed', '7', 'a b', '$HOME', '--', ';|&']);
  }, 30_000);

  it('exit codes pass back, and a signal that ends the server ends the tap the same way', async () => {
    const coded = await runHost({ serverArgs: ['--exit', '7'], payload: hostPayload(1), cuts: [] });
    expect(coded.code).toBe(7);
    const killed = await runHost({
      serverArgs: ['--signal', 'SIGTERM'],
      payload: hostPayload(1),
      cuts: [],
    });
    expect(killed.signal).toBe('SIGTERM');
    expect(killed.receivedSha).toBe(killed.report?.stdoutSha);
  }, 30_000);

  it('a SIGTERM the host sends the tap reaches the server; the tap ends as the server did', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-sig-'));
    const child = spawn(
      process.execPath,
      [CLI, 'tap', '--no-publish', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)'],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, PIPESCOPE_TRACE_DIR: dir, ...relayEnv },
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    await new Promise((r) => setTimeout(r, 800));
    child.kill('SIGTERM');
    const [code, signal] = await new Promise<[number | null, string | null]>((r) =>
      child.on('close', (c, s) => r([c, s])),
    );
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
    expect(out).toBe(''); // nothing of the tap's own, ever, on stdout
  }, 30_000);

  it('a SIGUSR1 that comes while the tap still loads reaches the server, never an inspector', async () => {
    // Until the tap's own handlers exist, Node acts on SIGUSR1 by opening its inspector (anyone
    // on the machine could then run code in the tap). bin/pipescope.js holds it from its first
    // line; the tap forwards it to the server once there is one. SIGUSR2's bit in SigCgt marks
    // that its handlers are all there (Node catches SIGUSR1 and SIGTERM itself from its start,
    // SIGUSR2 not, and bin/pipescope.js adds it last: SIGHUP's, once added before SIGUSR1's, let
    // the signal in between the two, and Node's inspector opened).
    const holding = (pid: number): boolean => {
      try {
        const m = /SigCgt:\s+([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m !== null && (BigInt(`0x${m[1]}`) & (1n << 11n)) !== 0n; // bit 11: SIGUSR2
      } catch {
        return false;
      }
    };
    const hasChild = (pid: number): boolean => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim() !== '';
      } catch {
        return true;
      }
    };
    // The window is tens of ms (the tap's modules loading): try until the signal lands in it.
    for (let attempt = 0; attempt < 10; attempt++) {
      const dir = mkdtempSync(path.join(tmpdir(), 'tap-early-'));
      const child = spawn(process.execPath, [CLI, 'tap', '--no-publish', '--', 'sleep', '30'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, PIPESCOPE_TRACE_DIR: dir, ...relayEnv },
      });
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
      });
      const pid = child.pid as number;
      while (!holding(pid) && child.exitCode === null) await new Promise((r) => setImmediate(r));
      const early = !hasChild(pid);
      child.kill('SIGUSR1');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const [code] = await new Promise<[number | null, string | null]>((r) =>
        child.on('close', (c, sg) => r([c, sg])),
      );
      clearTimeout(timer);
      if (!early) continue; // the server was already there: not the case under test
      // The server (sleep) died of it, and the tap ended as it did (128 + 10); no inspector.
      expect(err).not.toMatch(/Debugger/);
      expect(code).toBe(138);
      return;
    }
    throw new Error('no SIGUSR1 landed while the tap loaded in 10 tries');
  }, 120_000);

  it('a command that does not exist: the tap says so on stderr and exits 127', async () => {
    const child = spawn(process.execPath, [CLI, 'tap', '--no-publish', '--', 'no-such-cmd-xyz'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(127);
    expect(out).toBe('');
    expect(err).toContain('cannot start no-such-cmd-xyz');
  }, 30_000);
});
