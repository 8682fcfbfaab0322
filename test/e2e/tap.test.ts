/**
 * A tapped session in the real browser: browser mode listens for taps, and this test is the
 * host. It runs `pipescope tap --name demo --host "Test Host" -- node …/slow-producer.js` as a
 * host would (its stdin and stdout are the host's pipe, a few JSON-RPC lines by hand) and
 * checks that the app shows the session live as what it is: the "Test Host → demo" tab with
 * its tapped badge, the banner, the host's tools/call #7 pending with its progress growing,
 * none of the controls the tap refuses (stop, record, reader mode, composer), a Cancel that
 * reaches the server as an outgoing notifications/cancelled marked as sent by Pipescope,
 * Replay on a fresh server (a session of its own, which is shown), and "Write flight recorder"
 * with the path it wrote. When the host ends, the tap's sessions leave the list. A closed tab
 * of a tapped session is only hidden (the host's server keeps running) and stays hidden.
 *
 * Set PIPESCOPE_E2E_SCREENSHOTS=<dir> to write <dir>/screenshot-tap.png (dark, while #7 is in
 * flight): `PIPESCOPE_E2E_SCREENSHOTS=docs npx vitest run test/e2e/tap.test.ts` refreshes the
 * README's picture.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { INITIALIZED, initializeLine, line } from '../fixtures/host-messages.js';
import { descendants, stillRunning } from '../fixtures/processes.js';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { ROOT } from './launch.mjs';
import { pollUntil, requestRow, SOON, sessionIds, waitForStatus } from './session.js';

// Browser mode (started by setupApp) and every tap inherit these: the tap link's socket and
// token, and the traces the flight recorder writes, stay in this folder.
const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-tap-'));
const tapDir = path.join(tmp, 'run');
const traceDir = path.join(tmp, 'traces');
process.env.PIPESCOPE_TAP_DIR = tapDir;
process.env.PIPESCOPE_TRACE_DIR = traceDir;

const INITIALIZE = initializeLine('e2e-host');
/**
 * The host's long call. The tool's arguments are `steps` and `delayMs` (`delay-ms` is the
 * demo's knob, which the tool would ignore as an argument); 600 × 50 ms = 30 s, longer than the
 * test, so only the cancel ends it. The progress token makes the server report each step.
 */
const PRODUCE = line({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'produce',
    arguments: { steps: 600, delayMs: 50 },
    _meta: { progressToken: 'p7' },
  },
});
/** A quick call of the host's, to replay on a fresh server. */
const ECHO = line({
  jsonrpc: '2.0',
  id: 8,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'replay me' } },
});

/** A tap this test runs as its host: it writes the host's lines and reads the server's. */
interface Host {
  child: ChildProcessWithoutNullStreams;
  /** What the host read (the server's stdout, through the tap). */
  out(): string;
  err(): string;
  /** Waits for a line of the server's that holds `text`. */
  read(text: string, what: string): Promise<void>;
  /** The host ends: closes the tap's stdin; resolves with the tap's exit code. */
  end(): Promise<number | null>;
}

const hosts = new Set<Host>();
/** Every process seen under a tap (the server, a replay's server), with its command line. */
const seen = new Map<number, string>();

function startTap(name: string): Host {
  const child = spawn(
    'node',
    [
      'bin/pipescope.js',
      'tap',
      '--name',
      name,
      '--host',
      'Test Host',
      '--',
      'node',
      'dist/electron/demo-servers/slow-producer.js',
    ],
    { cwd: ROOT, env: { ...process.env }, stdio: 'pipe' },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const host: Host = {
    child,
    out: () => out,
    err: () => err,
    read: async (text, what) => {
      const got = await pollUntil(
        () => out.includes(text),
        (v) => v,
      );
      if (!got) throw new Error(`the host never read ${what}\ntap stderr:\n${err}`);
    },
    end: () => {
      child.stdin.end();
      return closed;
    },
  };
  hosts.add(host);
  return host;
}

/** Remembers the tap's processes (the servers it started) so that none outlives the test. */
function trackTap(host: Host): void {
  if (host.child.pid) for (const p of descendants(host.child.pid)) seen.set(p.pid, p.args);
}

/** Taps still running, and processes seen under one still running (zombies aside). */
function leftovers(): { pid: number; what: string }[] {
  const taps = [...hosts]
    .filter((h) => h.child.pid && h.child.exitCode === null && h.child.signalCode === null)
    .map((h) => ({ pid: h.child.pid as number, what: `tap ${h.child.pid}` }));
  const under = stillRunning(seen.keys())
    .filter((p) => p.state !== 'Z' && seen.get(p.pid) === p.args)
    .map((p) => ({ pid: p.pid, what: `${p.pid} ${p.args}` }));
  return [...taps, ...under];
}

afterEach(async () => {
  // A test that failed half-way leaves its host running: end it as a host would.
  for (const host of hosts) {
    trackTap(host);
    if (host.child.exitCode === null && host.child.signalCode === null) {
      const timer = new Promise((r) => setTimeout(r, 5000).unref());
      await Promise.race([host.end(), timer]);
    }
  }
  const left = await pollUntil(leftovers, (l) => l.length === 0);
  // Whatever is still there fails the test, and is killed.
  for (const p of left) process.kill(p.pid, 'SIGKILL');
  hosts.clear();
  seen.clear();
  expect(
    left.map((p) => p.what),
    'processes of the tap still running',
  ).toEqual([]);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Waits for the tab titled `title` and resolves with its session id. */
async function tabTitled(page: Page, title: string): Promise<string> {
  const tab = page.locator('nav.tabs > [data-testid^="tab-"]', {
    has: page.locator('.tab-open', { hasText: title }),
  });
  await tab.waitFor({ timeout: SOON });
  const testId = (await tab.getAttribute('data-testid')) ?? '';
  return testId.slice('tab-'.length);
}

/** The "N progress" tag of a request row. */
async function progressCount(page: Page, id: string): Promise<number> {
  const m = /(\d+) progress/.exec((await requestRow(page, id).textContent()) ?? '');
  return m ? Number(m[1]) : 0;
}

describe.runIf(chromiumAvailable())('tapped session', () => {
  const app = setupApp();

  it('shows a host’s session live and read-only; Cancel, Replay and the flight recorder go through the tap', async () => {
    const { page } = app;
    await page.locator('main[data-state="ready"]').waitFor({ timeout: SOON });
    const host = startTap('demo');
    host.child.stdin.write(INITIALIZE);
    await host.read('"id":1', 'the answer to initialize');
    host.child.stdin.write(INITIALIZED);
    host.child.stdin.write(PRODUCE);

    // Live: the tab appears without a reload, with its badge (host and pid as the tooltip).
    const id = await tabTitled(page, 'Test Host → demo');
    const badge = page.getByTestId(`tab-tapped-${id}`);
    expect(await badge.textContent()).toBe('TAPPED');
    expect(await badge.getAttribute('title')).toBe(
      `Tapped: Test Host (pid ${process.pid}) runs this server through pipescope tap`,
    );
    await page.locator(`[data-testid="tab-${id}"] .tab-open`).click();
    const view = page.locator(
      `[data-testid="session-view"][data-session-id="${id}"][data-tapped="true"]`,
    );
    await view.waitFor({ timeout: SOON });
    await page
      .locator('[data-testid="session-view"][data-handshake="done"]')
      .waitFor({ timeout: SOON });
    // What the host's own handshake learned is shown as the session's.
    await page.getByTestId('server-info').waitFor({ timeout: SOON });
    expect(await page.getByTestId('server-info').textContent()).toMatch(
      /slow-producer .* · protocol 2025-11-25/,
    );
    expect(await page.getByTestId('tap-banner-text').textContent()).toBe(
      `Tapped: Test Host (pid ${process.pid}) runs this server through pipescope tap; read-only. Cancel marks a cancellation as sent by Pipescope.`,
    );
    expect(await page.getByTestId('session-argv').textContent()).toBe(
      'node dist/electron/demo-servers/slow-producer.js',
    );
    // Which relay moves the bytes (native where built, on Linux), and the queue counters say
    // they are Pipescope's observer's, never the host's, and never amber.
    const relayKind = await page.getByTestId('tap-relay').getAttribute('data-relay');
    expect(['native', 'node']).toContain(relayKind);
    if (existsSync(path.join(ROOT, 'dist/electron/tap/pipescope-relay')))
      expect(relayKind).toBe('native');
    const queue = page.locator('.counter', { has: page.getByTestId('counter-queue-wait') });
    expect(await queue.locator('.counter-label').textContent()).toBe('observer wait');
    expect(await queue.getAttribute('data-tone')).toBe('normal');

    // The host's call: pending, its progress and the frame count growing.
    await waitForStatus(page, '7', 'pending');
    await expect.poll(() => progressCount(page, '7'), { timeout: SOON }).toBeGreaterThan(3);
    const before = await progressCount(page, '7');
    await expect.poll(() => progressCount(page, '7'), { timeout: SOON }).toBeGreaterThan(before);
    expect(await requestRow(page, '7').getAttribute('data-status')).toBe('pending');

    // Nothing that would act on the host's session is offered.
    for (const testId of [
      'stop-session',
      'record-toggle',
      'demo-controls',
      'reader-paused',
      'consumer-delay',
      'send-tool',
      'tool-select',
      'recovery-probe',
    ]) {
      expect(await page.getByTestId(testId).count(), `${testId} is offered`).toBe(0);
    }
    // initialize has no Cancel; the host's call has Cancel and "Replay on a fresh server".
    expect(await page.getByTestId('cancel-1').isDisabled()).toBe(true);
    expect(await page.getByTestId('replay-7').textContent()).toBe('Replay on a fresh server');

    const shots = process.env.PIPESCOPE_E2E_SCREENSHOTS;
    if (shots) await screenshot(page, path.join(shots, 'screenshot-tap.png'));

    // Cancel: the request is cancelled, and the tap wrote notifications/cancelled to the server.
    await page.getByTestId('cancel-7').click();
    await waitForStatus(page, '7', 'cancelled');
    expect(await page.locator('[data-testid="request-row-7"] .status').getAttribute('title')).toBe(
      'cancelled: sent by Pipescope: cancelled in Pipescope',
    );
    await page.getByLabel('Direction').selectOption('out');
    await page.getByLabel('Search method or id').fill('notifications/cancelled');
    const cancelled = page.locator('[data-testid="frame-row"][data-dir="out"]', {
      hasText: 'notifications/cancelled',
    });
    await cancelled.waitFor({ timeout: SOON });
    expect(await cancelled.textContent()).toContain('sent by Pipescope');
    // The host went on reading: no answer to #7 ever reached it (the producer stopped).
    await page.getByLabel('Search method or id').fill('');
    await page.getByLabel('Direction').selectOption('all');
    expect(host.out()).not.toContain('"id":7');

    // The flight recorder: the tap writes it to the traces folder and the banner shows where.
    await page.getByTestId('tap-dump').click();
    await page
      .locator('[data-testid="tap-dump-state"][data-state="written"]')
      .waitFor({ timeout: SOON });
    const file = (await page.getByTestId('tap-dump-path').textContent()) ?? '';
    expect(path.dirname(file)).toBe(traceDir);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('"method":"notifications/cancelled"');

    // Replay on a fresh server: the tap starts one and its session is shown, the request in it.
    host.child.stdin.write(ECHO);
    await host.read('"id":8', 'the answer to echo');
    await waitForStatus(page, '8', 'completed');
    trackTap(host);
    await page.getByTestId('replay-8').click();
    const replayId = await tabTitled(page, 'demo: replay of tools/call #8');
    await page
      .locator(`[data-testid="session-view"][data-session-id="${replayId}"][data-tapped="false"]`)
      .waitFor({ timeout: SOON });
    expect(await page.getByTestId(`tab-tapped-${replayId}`).textContent()).toBe('REPLAY');
    expect(await page.locator('[data-testid="tap-banner"][data-replay="true"]').count()).toBe(1);
    const replayed = page.locator('tr[data-testid^="request-row-"][aria-selected="true"]');
    await replayed.waitFor({ timeout: SOON });
    await expect
      .poll(() => replayed.getAttribute('data-status'), { timeout: SOON })
      .toBe('completed');
    expect(await replayed.textContent()).toMatch(/tools\/call.*replay/);
    // Its traffic is Pipescope's: the controls are there.
    expect(await page.getByTestId('stop-session').count()).toBe(1);
    trackTap(host);

    // The host ends: the tap stops its servers and leaves, and its sessions leave the list.
    expect(await host.end()).toBe(0);
    await page.getByTestId(`tab-${id}`).waitFor({ state: 'detached', timeout: SOON });
    await page.getByTestId(`tab-${replayId}`).waitFor({ state: 'detached', timeout: SOON });
    expect(await page.locator('nav.tabs [data-testid^="tab-tapped-"]').count()).toBe(0);
    await page.getByTestId('start-screen').waitFor({ state: 'visible', timeout: SOON });
  });

  it('closing a tapped session’s tab hides it here; the host’s server keeps running', async () => {
    const { page } = app;
    const host = startTap('hidden');
    host.child.stdin.write(INITIALIZE);
    await host.read('"id":1', 'the answer to initialize');
    host.child.stdin.write(INITIALIZED);
    const id = await tabTitled(page, 'Test Host → hidden');
    expect(await page.getByTestId(`close-${id}`).getAttribute('title')).toMatch(/^Hide this tab/);
    await page.getByTestId(`close-${id}`).click();
    await page.getByTestId(`tab-${id}`).waitFor({ state: 'detached', timeout: SOON });
    // The server still answers the host, and the session's later snapshots and list changes
    // do not bring the tab back.
    host.child.stdin.write(ECHO);
    await host.read('"id":8', 'the answer to echo after the tab was hidden');
    trackTap(host);
    expect(await host.end()).toBe(0);
    // The tap's last events (its session stopped, then gone) came before it exited: give the
    // page a moment to show them, and the tab must not come back meanwhile.
    const ids = await pollUntil(
      () => sessionIds(page),
      (l) => l.includes(id),
      1500,
    );
    expect(ids).not.toContain(id);
    expect(await page.getByText('session:close').count()).toBe(0);
  });
});

/** The README's picture: dark like the others, no focus ring or hover, then light again. */
async function screenshot(page: Page, file: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  // A few more steps on the waterfall and the charts (a marker, not a sleep).
  const from = await progressCount(page, '7');
  await expect.poll(() => progressCount(page, '7'), { timeout: SOON }).toBeGreaterThan(from + 20);
  await page.getByTestId('session-state').click();
  await page.mouse.move(0, 899);
  await page.screenshot({ path: file, animations: 'disabled' });
  await page.emulateMedia({ colorScheme: 'light' });
  console.log(`[e2e] tap: screenshot ${file}`);
}
