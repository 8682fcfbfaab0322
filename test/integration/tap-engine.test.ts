/**
 * What the tap sees, on real processes: this test is the host (a few lines of JSON-RPC by hand,
 * no SDK) and, where it says so, the app (a SessionManager listening for taps, as browser mode
 * and the Electron app do). A host that stops reading is named `host-not-reading`, never
 * `server-write-blocked`; a published session shows up with the host's requests; the engineer's
 * cancellation reaches the server between the host's lines; the flight recorder writes out on
 * request; a host request replays on a fresh server.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../electron/demo-servers/launch.js';
import { SessionManager } from '../../electron/engine/host/session-manager.js';
import type { HostEvent } from '../../shared/host-api.js';
import type { ProbeReport } from '../../shared/probe-report.js';
import type { SessionInfo, SessionSnapshot } from '../../shared/session-info.js';
import { line } from '../fixtures/host-messages.js';
import { runCli, waitFor } from './helpers.js';
import { handshake, TAP_RELAYS, tapStarter } from './tap-relays.js';

/** The relay the running suite uses (its environment). */
let relayEnv: Record<string, string> = {};

const { tap } = tapStarter(() => relayEnv);
const managers = new Set<SessionManager>();
afterEach(async () => {
  for (const m of managers) await m.stopAll();
  managers.clear();
});

describe.each(TAP_RELAYS)('tap ($name relay): what it sees', (relay) => {
  beforeAll(() => {
    relayEnv = relay.env;
  });

  it('a host that stops reading: host-not-reading, not server-write-blocked (trace report)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-engine-'));
    const trace = path.join(dir, 'host-stops.jsonl');
    const t = tap(
      demoCommand('oversized-result'),
      ['--no-publish', '--trace', trace, '--name', 'big'],
      dir,
    );
    await handshake(t);
    t.child.stdout.pause(); // the host stops reading, and sends a call whose answer is 8 MiB
    t.child.stdin.write(
      line({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'dump', arguments: {} },
      }),
    );
    await new Promise((r) => setTimeout(r, 3500));
    t.child.stdout.resume();
    await waitFor(() => t.out().includes('"id":2'), 20_000, 'the 8 MiB answer');
    t.child.stdin.end();
    expect(await t.closed).toBe(0);
    const r = await runCli(['report', '--json', trace]);
    const report = JSON.parse(r.stdout) as ProbeReport;
    const codes = report.findings.map((f) => f.code);
    expect(codes).toContain('host-not-reading');
    expect(codes).not.toContain('server-write-blocked');
    const call = report.requests.find((q) => q.id === 2);
    expect(call?.status).toBe('completed');
    expect(call?.responseBytes).toBeGreaterThan(8 * 1024 * 1024);
    // The host sat on it for 3.5 s: the tap timed its reading of the answer.
    expect(call?.hostReadMs).toBeGreaterThan(2500);
    const finding = report.findings.find((f) => f.code === 'host-not-reading');
    expect(finding?.message).toContain("the host has not read the server's stdout");
    // The flight recorder wrote itself out when the error-level finding fired: a trace the
    // same reader opens, its report naming the same finding.
    const flights = readdirSync(dir).filter((f) => f.startsWith('flight-big-'));
    expect(flights).toHaveLength(1);
    const fr = await runCli(['report', '--json', path.join(dir, flights[0] as string)]);
    const flightReport = JSON.parse(fr.stdout) as ProbeReport;
    expect(flightReport.findings.map((f) => f.code)).toContain('host-not-reading');
  }, 60_000);

  // The JavaScript relay hands copies to the observer as it relays (its tees hold 64 MiB, then
  // a gap): only the native relay can hold a larger first answer until the observer is there.
  it.runIf(relay.name === 'native')(
    'a first answer of 80 MiB, while the observer has not loaded yet: observed whole',
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'tap-first-big-'));
      const trace = path.join(dir, 'first-big.jsonl');
      // Answers the first line it reads with 80 MiB of text, at once: the tap's first output.
      const server = {
        command: process.execPath,
        args: [
          '-e',
          `const text = 'x'.repeat(80 * 1024 * 1024);
           process.stdin.once('data', (d) => {
             const id = JSON.parse(String(d).split('\\n')[0]).id;
             process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"' + text + '"}]}}\\n');
           });
           process.stdin.resume();`,
        ],
      };
      const t = tap(server, ['--no-publish', '--trace', trace, '--name', 'first-big'], dir);
      t.child.stdin.write(
        line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'dump' } }),
      );
      await waitFor(() => t.out().endsWith('}]}}\n'), 30_000, 'the 80 MiB answer');
      t.child.stdin.end();
      expect(await t.closed).toBe(0);
      const report = JSON.parse((await runCli(['report', '--json', trace])).stdout) as ProbeReport;
      const call = report.requests.find((q) => q.id === 1);
      expect(call?.status).toBe('completed');
      expect(call?.responseBytes).toBeGreaterThan(80 * 1024 * 1024);
      const codes = report.findings.map((f) => f.code);
      expect(codes).not.toContain('server-write-blocked');
      expect(codes).not.toContain('truncated-at-exit');
      // A gap in the copies is raised as the observer falling behind.
      expect(codes).not.toContain('dispatch-overflow');
    },
    90_000,
  );

  it('published: the app lists the tapped session; Cancel, dump and replay go through the tap', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-app-'));
    const app = new SessionManager();
    managers.add(app);
    expect(await app.startTaps(dir)).toBeNull();
    const events: HostEvent[] = [];
    app.subscribe((e) => events.push(e));
    const t = tap(demoCommand('slow-producer'), ['--name', 'producer', '--host', 'Test Host'], dir);
    await handshake(t);
    const args = { steps: 200, 'delay-ms': 50 };
    t.child.stdin.write(
      line({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'produce', arguments: args },
      }),
    );
    const tapped = await waitFor(
      () => app.infos().find((s) => s.tap?.name === 'producer' && s.state === 'running'),
      15_000,
      'the tapped session in the app',
    );
    expect(tapped.title).toBe('Test Host → producer');
    expect(tapped.tap?.host.pid).toBeGreaterThan(0);
    // The relay it says moves the bytes is the one this suite asked for.
    expect(tapped.tap?.relay?.kind).toBe(relay.name);
    if (relay.name === 'node') expect(tapped.tap?.relay?.reason).toBe('PIPESCOPE_TAP_RELAY=node');
    // What the host's own handshake learned is shown as the session's.
    const learned = await waitFor(
      () => app.infos().find((s) => s.id === tapped.id && s.serverInfo)?.serverInfo,
      10_000,
      "the server info from the host's initialize",
    );
    expect(learned?.name).toContain('slow-producer');
    // The host's request is there, pending, in a snapshot the app got.
    await waitFor(
      () =>
        events.some(
          (e) =>
            e.type === 'snapshot' &&
            e.snapshot.sessionId === tapped.id &&
            (e.snapshot.requests ?? []).some((q) => q.id === 7 && q.status === 'pending'),
        ),
      10_000,
      "the host's tools/call in a snapshot",
    );
    // A window that opens now (a reload, a second tab) gets the tapped session's whole state,
    // from the tap, to itself: the request no later delta repeats, and the frames so far.
    const late: HostEvent[] = [];
    const offLate = app.subscribe((e) => late.push(e));
    const wholeOf = (e: HostEvent): SessionSnapshot | null =>
      e.type === 'snapshot' && e.snapshot.sessionId === tapped.id && e.snapshot.replace
        ? e.snapshot
        : null;
    const whole = await waitFor(
      () => late.map(wholeOf).find((x) => x !== null),
      10_000,
      'the tapped session in a late subscriber',
    );
    offLate();
    expect(whole.requests.find((q) => q.id === 7)?.status).toBe('pending');
    expect(whole.frames.some((f) => f.method === 'initialize')).toBe(true);
    // What would change the host's session is refused; a cancellation is not.
    const stop = await app.handle('session:stop', { sessionId: tapped.id });
    expect(stop.ok).toBe(false);
    const cancel = await app.handle('request:cancel', { sessionId: tapped.id, requestId: 7 });
    expect(cancel).toEqual({ ok: true, value: null });
    // The host still gets the server's bytes and can go on: a ping after the cancel answers.
    t.child.stdin.write(line({ jsonrpc: '2.0', id: 8, method: 'ping' }));
    await waitFor(() => t.out().includes('"id":8'), 10_000, 'the ping after the cancel');
    const dump = await app.handle('tap:dump', { sessionId: tapped.id });
    expect(dump.ok).toBe(true);
    const file = (dump as { value: { path: string } }).value.path;
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"method":"notifications/cancelled"');
    expect(text).toContain('sent by Pipescope');
    const replay = await app.handle('request:replay', { sessionId: tapped.id, requestId: 8 });
    expect(replay.ok).toBe(true);
    const fresh = await waitFor(
      () => app.infos().find((s: SessionInfo) => s.title.includes('replay of ping')),
      15_000,
      'the replay session',
    );
    expect(fresh.tap?.name).toBe('producer');
    t.child.stdin.end();
    expect(await t.closed).toBe(0);
    // The tap is gone: so are its sessions from the app's list.
    await waitFor(() => !app.infos().some((s) => s.tap), 10_000, 'the tap leaving the list');
  }, 90_000);
});
