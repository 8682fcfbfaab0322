/**
 * States that tell the truth (issue 22, points 2 and 4): a start that failed is a state of its
 * own with its cause in words (ENOENT, EACCES, a server that exited at once with its code and
 * stderr) and Edit & retry runs the edited config in its place, environment values kept on the
 * host; a server that crashed says so, its rates fall to zero while the last byte's age keeps
 * counting, and Restart starts the same config again in the same tab.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { ROOT } from './launch.mjs';
import { callTool, SOON, showStartScreen, startDemo } from './session.js';
import { shoot } from './shots.js';

const SECRET = 'kept-on-the-host-5f3a';
const HEALTHY = path.join(ROOT, 'dist/electron/demo-servers/healthy.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** The value the server expects, in a file (its arguments are shown; the value must not be). */
const TOKEN_FILE = path.join(scratch, 'token');
writeFileSync(TOKEN_FILE, SECRET);
/** Runs the healthy demo only when the variable has the value it was configured with. */
const NEEDS_TOKEN = [
  `const want = require('node:fs').readFileSync(${JSON.stringify(TOKEN_FILE)}, 'utf8');`,
  "if (process.env.PS_E2E_TOKEN !== want) { console.error('PS_E2E_TOKEN is not set'); process.exit(4); }",
  "import(require('node:url').pathToFileURL(process.argv[1]).href);",
].join(' ');
let received = '';

/** The tab ids in order, read at one moment. */
function tabIds(page: Page): Promise<string[]> {
  return page.$$eval('nav.tabs > [data-testid^="tab-"]:not([data-testid="tab-start"])', (tabs) =>
    tabs.map((t) => (t.getAttribute('data-testid') ?? '').slice('tab-'.length)),
  );
}

/** Fills the start screen's custom server form and runs it; resolves with the new tab's id. */
async function runCustom(
  page: Page,
  server: { command: string; args: string[]; env?: Record<string, string> },
): Promise<string> {
  await showStartScreen(page);
  const form = page.getByTestId('custom-server-form');
  await form.getByTestId('custom-command').fill(server.command);
  await form.getByTestId('custom-args').fill(server.args.join('\n'));
  for (const row of await form.locator('[aria-label="remove variable"]').all()) await row.click();
  for (const [name, value] of Object.entries(server.env ?? {})) {
    await form.getByTestId('add-env').click();
    await form.getByLabel('variable name').last().fill(name);
    await form.getByLabel('value of').last().fill(value);
  }
  const before = new Set(await tabIds(page));
  await form.getByTestId('custom-start').click();
  let id = '';
  await expect
    .poll(
      async () => {
        id = (await tabIds(page)).find((t) => !before.has(t)) ?? '';
        return id;
      },
      { timeout: SOON },
    )
    .not.toBe('');
  return id;
}

function view(page: Page, id: string) {
  return page.locator(`[data-testid="session-view"][data-session-id="${id}"]`);
}

/** The ms of "last byte 1.25 s ago" / "last byte 850 ms ago". */
async function lastByteMs(page: Page): Promise<number> {
  const text = (await page.getByTestId('counter-last-byte').textContent()) ?? '';
  const m = /last byte ([\d.]+) (ms|s) ago/.exec(text);
  if (!m) throw new Error(`no age in "${text}"`);
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

describe.runIf(chromiumAvailable())('states that tell the truth', () => {
  const app = setupApp({
    beforeNavigate: (page) => {
      page.on('websocket', (ws) =>
        ws.on('framereceived', ({ payload }) => {
          received += String(payload);
        }),
      );
    },
  });

  it('a command not found: its own state, then Edit & retry runs the fix in its place', async () => {
    const { page } = app;
    const id = await runCustom(page, {
      command: 'pipescope-e2e-no-such-command',
      args: ['-e', NEEDS_TOKEN, HEALTHY],
      env: { PS_E2E_TOKEN: SECRET },
    });
    const failed = view(page, id).getByTestId('failed-start');
    await failed.waitFor({ timeout: SOON });
    expect(await failed.getAttribute('data-code')).toBe('ENOENT');
    expect(await page.getByTestId('failed-headline').textContent()).toBe(
      'Command not found: pipescope-e2e-no-such-command',
    );
    expect(await page.getByTestId('session-state').textContent()).toBe('failed to start');
    // Not an empty dashboard: no counters of zeros, no "handshake…", no "No findings yet".
    expect(await page.getByTestId('counters').count()).toBe(0);
    await shoot(page, 'failed-start-enoent');

    await page.getByTestId('edit-retry').click();
    const dialog = page.locator('[data-testid="retry-dialog"][data-loaded="true"]');
    await dialog.waitFor({ timeout: SOON });
    const command = dialog.getByTestId('custom-command');
    expect(await command.inputValue()).toBe('pipescope-e2e-no-such-command');
    expect(await dialog.getByTestId('custom-args').inputValue()).toBe(
      ['-e', NEEDS_TOKEN, HEALTHY].join('\n'),
    );
    // The variable comes back by name; its value stayed on the host.
    expect(await dialog.getByLabel('variable name').inputValue()).toBe('PS_E2E_TOKEN');
    expect(await dialog.getByLabel('value of PS_E2E_TOKEN').inputValue()).toBe('');
    await command.fill(process.execPath);
    await shoot(page, 'edit-retry-dialog');
    await dialog.getByTestId('custom-start').click();

    // The same place in the tab bar, a new session that runs (with the kept value: else exit 4).
    let next = '';
    await expect
      .poll(
        async () => {
          const ids = await tabIds(page);
          next = ids[0] ?? '';
          return ids.length === 1 && next !== id;
        },
        { timeout: SOON },
      )
      .toBe(true);
    await view(page, next)
      .and(page.locator('[data-session-state="running"][data-handshake="done"]'))
      .waitFor({ timeout: SOON });
    expect(await page.getByTestId('server-info').textContent()).toMatch(/pipescope-demo-healthy/);
    expect(await page.getByTestId('retry-dialog').count()).toBe(0);
    expect(received).not.toContain(SECRET);
  });

  it('permission denied, and a server that exits at once with its stderr and code', async () => {
    const { page } = app;
    const script = path.join(scratch, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\necho never\n');
    chmodSync(script, 0o644);
    const denied = await runCustom(page, { command: script, args: [] });
    await view(page, denied).locator('[data-code="EACCES"]').waitFor({ timeout: SOON });
    expect(await page.getByTestId('failed-headline').textContent()).toBe(
      `Permission denied: ${script}`,
    );

    const quits = await runCustom(page, {
      command: process.execPath,
      args: ['-e', "console.error('boom: no config at /etc/srv.json'); process.exit(3)"],
    });
    const failed = view(page, quits).locator('[data-testid="failed-start"][data-code="exit 3"]');
    await failed.waitFor({ timeout: SOON });
    expect(await page.getByTestId('failed-headline').textContent()).toBe(
      `${process.execPath} exited with code 3 before answering initialize`,
    );
    await expect
      .poll(() => page.getByTestId('failed-stderr').textContent(), { timeout: SOON })
      .toContain('boom: no config at /etc/srv.json');
    await shoot(page, 'failed-start-exit');
    // Retry (as it was) runs it again in the same place: it fails the same way.
    await page.getByTestId('retry').click();
    let again = '';
    await expect
      .poll(
        async () => {
          const ids = await tabIds(page);
          again = ids[1] ?? '';
          return ids.length === 2 && ids[0] === denied && again !== quits;
        },
        { timeout: SOON },
      )
      .toBe(true);
    await view(page, again).locator('[data-code="exit 3"]').waitFor({ timeout: SOON });
  });

  it('a crash: the badge says so, rates fall to zero, ages count, Restart runs it again here', async () => {
    const { page } = app;
    const before = await startDemo(page, 'healthy');
    const id = await startDemo(page, 'crash-mid-response');
    await callTool(page, 'crash');
    const badge = page.getByTestId('session-state');
    await expect.poll(() => badge.textContent(), { timeout: SOON }).toBe('exited with code 3');
    expect(await badge.getAttribute('data-outcome')).toBe('exited');
    expect(await view(page, id).getAttribute('data-session-state')).toBe('stopped');
    // 32 KiB arrived just before the exit: the rate does not stay at what it was, it is 0.
    await expect
      .poll(() => page.getByTestId('counter-stdout-rate').textContent(), { timeout: SOON })
      .toBe('0 B/s');
    const first = await lastByteMs(page);
    await expect.poll(() => lastByteMs(page), { timeout: SOON }).toBeGreaterThan(first + 1500);
    expect(await page.getByTestId('counter-stdout-rate').textContent()).toBe('0 B/s');
    await shoot(page, 'crashed-restart', async () => {
      await page.evaluate("document.querySelector('main').scrollTop = 0");
    });

    await page.getByTestId('restart-session').click();
    let next = '';
    await expect
      .poll(
        async () => {
          const ids = await tabIds(page);
          next = ids[1] ?? '';
          return ids.length === 2 && ids[0] === before && next !== id;
        },
        { timeout: SOON },
      )
      .toBe(true);
    await view(page, next)
      .and(page.locator('[data-session-state="running"][data-handshake="done"]'))
      .waitFor({ timeout: SOON });
    expect(
      await page.locator(`nav.tabs [data-testid="tab-${next}"] .tab-title`).textContent(),
    ).toBe('crash-mid-response');
    expect(await badge.textContent()).toBe('running');
  });
});
