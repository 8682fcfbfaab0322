/**
 * How a tapped session ends. The tap's observer hears of the host's end (stdin EOF, a signal)
 * from the relay on one channel and of the server's exit on another (through the transport
 * worker): the two may reach it in either order. A server that exits after the host closed its
 * stdin ended normally (no `server-exited`, and so no flight trace), even when its last answer
 * was 8 MiB; a server that dies on its own while the host is still connected is `server-exited`,
 * even when the relay's end reaches the observer first. On real processes (this test is the
 * host), and on a session fed by a relay written here, which delivers in the order it is told.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../electron/demo-servers/launch.js';
import { Session } from '../../electron/engine/session/session.js';
import type { FromRelay } from '../../electron/wire/tap-protocol.js';
import type { ProbeReport } from '../../shared/probe-report.js';
import { line } from '../fixtures/host-messages.js';
import { runCli, waitFor } from './helpers.js';
import { handshake, TAP_RELAYS, tapStarter } from './tap-relays.js';

/** The relay the running suite uses (its environment). */
let relayEnv: Record<string, string> = {};

const { tap, own } = tapStarter(() => relayEnv);
const sessions = new Set<Session>();
afterEach(async () => {
  for (const s of sessions) await s.stop();
  sessions.clear();
});

async function reportOf(trace: string): Promise<ProbeReport> {
  return JSON.parse((await runCli(['report', '--json', trace])).stdout) as ProbeReport;
}

const flights = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('flight-'));

describe.each(TAP_RELAYS)('tap ($name relay): how the session ends', (relay) => {
  beforeAll(() => {
    relayEnv = relay.env;
  });

  it('an 8 MiB answer read whole, then stdin closed: the exit that follows is the end', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-exit-'));
    const trace = path.join(dir, 'big-then-eof.jsonl');
    const t = tap(
      demoCommand('oversized-result'),
      ['--no-publish', '--trace', trace, '--name', 'big'],
      dir,
    );
    await handshake(t);
    // Once the observer runs (it loads at the first answer), it takes the 8 MiB frame as the
    // host reads it, and is still on it when the host's EOF and the exit come.
    await new Promise((r) => setTimeout(r, 1500));
    t.child.stdin.write(
      line({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'dump', arguments: {} },
      }),
    );
    await waitFor(
      () => t.bytes() > 8 * 1024 * 1024 && t.tail().endsWith('\n'),
      20_000,
      'the 8 MiB answer, whole',
    );
    t.child.stdin.end();
    expect(await t.closed).toBe(0);
    const report = await reportOf(trace);
    const call = report.requests.find((q) => q.id === 2);
    expect(call?.status).toBe('completed');
    expect(call?.responseBytes).toBeGreaterThan(8 * 1024 * 1024);
    const errors = report.findings.filter((f) => f.level === 'error').map((f) => f.code);
    expect(errors).not.toContain('server-exited');
    expect(errors).toEqual([]);
    // No error fired: the flight recorder had nothing to write (the --trace file is the only one).
    expect(flights(dir)).toEqual([]);
    expect(readdirSync(dir)).toContain('big-then-eof.jsonl');
  }, 60_000);

  it("the host's SIGTERM, forwarded: the exit by it is the end, not server-exited", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-exit-'));
    const trace = path.join(dir, 'sigterm.jsonl');
    const t = tap(demoCommand('healthy'), ['--no-publish', '--trace', trace, '--name', 'sig'], dir);
    await handshake(t);
    // Once the observer is there (its session is running), the host ends the server by signal.
    await new Promise((r) => setTimeout(r, 1500));
    const signalled = new Promise<string | null>((r) => t.child.on('close', (_c, s) => r(s)));
    t.child.kill('SIGTERM');
    expect(await signalled).toBe('SIGTERM');
    const report = await reportOf(trace);
    expect(report.findings.map((f) => f.code)).not.toContain('server-exited');
    expect(flights(dir)).toEqual([]);
  }, 60_000);

  it('a server that dies on its own, the host still connected: server-exited', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-exit-'));
    const trace = path.join(dir, 'dies.jsonl');
    // Answers initialize, then exits 3 a moment later while its stdin is still open.
    const server = {
      command: process.execPath,
      args: [
        '-e',
        `process.stdin.once('data', (d) => {
           const id = JSON.parse(String(d).split('\\n')[0]).id;
           process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'dies', version: '1' } } }) + '\\n');
           setTimeout(() => process.exit(3), 300);
         });
         process.stdin.resume();`,
      ],
    };
    const t = tap(server, ['--no-publish', '--trace', trace, '--name', 'dies'], dir);
    await handshake(t);
    // The host keeps stdin open: the server's exit is its own.
    expect(await t.closed).toBe(3);
    t.child.stdin.end();
    const report = await reportOf(trace);
    const exited = report.findings.find((f) => f.code === 'server-exited');
    expect(exited?.message).toContain('code 3');
    expect(flights(dir)).toHaveLength(1);
  }, 60_000);
});

/** A tapped session whose relay is this test: it posts what a relay would, in the order given. */
async function relayedSession(): Promise<{ session: Session; relay: MessagePort }> {
  const server = spawn('sleep', ['60']);
  own(server as ChildProcessWithoutNullStreams);
  const { port1: relay, port2 } = new MessageChannel();
  const session = new Session(
    { command: 'sleep', args: ['60'], requestTimeoutMs: 0 },
    { tap: port2, startedAtEpochMs: performance.timeOrigin + performance.now() },
  );
  sessions.add(session);
  relay.postMessage({ type: 'spawned', pid: server.pid ?? -1, t: 1 } satisfies FromRelay);
  await session.whenStarted();
  return { session, relay };
}

/** The relay's last two messages: stdout's end, then the exit with `code`, stamped. */
function endThenExit(relay: MessagePort, code: number, hostEnded: boolean): void {
  relay.postMessage({ type: 'stdout-end', t: 10 } satisfies FromRelay);
  relay.postMessage({
    type: 'exit',
    exit: { code, signal: null, t: 11 },
    hostEnded,
  } satisfies FromRelay);
}

describe("a tapped session: the exit against the host's end, whichever channel comes first", () => {
  it('an exit after the host ended, before the observer heard of the end: not server-exited', async () => {
    const { session, relay } = await relayedSession();
    const exited = new Promise((r) => session.once('exit', r));
    // The relay saw the host's stdin end, then the exit; the observer's stdin-end is late.
    endThenExit(relay, 0, true);
    await exited;
    await session.stop();
    expect(session.findings.has('server-exited')).toBe(false);
    relay.close();
  });

  it('an exit of its own, after the relay ended and the observer began to stop: server-exited', async () => {
    const { session, relay } = await relayedSession();
    // The observer's finish (relay done) overtook the exit coming through the transport worker.
    const stopped = session.stop();
    endThenExit(relay, 3, false);
    await stopped;
    expect(session.findings.has('server-exited')).toBe(true);
    expect(session.findings.all().find((f) => f.code === 'server-exited')?.message).toContain(
      'code 3',
    );
    relay.close();
  });
});
