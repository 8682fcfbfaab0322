/**
 * The process panel in the real browser against real servers (DESIGN.md "Process evidence"):
 * the oversized-result demo with its reader paused shows the server's row with what it is
 * doing, its stdio and who holds the other ends, and the server-write-blocked finding marks
 * that row as its evidence; subprocess-blocked shows a tree whose child is blocked in write()
 * and is the evidence of subprocess-blocked; a recorded session's trace shows the process
 * panel offline. Every wait is on a data-state / data-* marker.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { callTool, SOON, serverPid, showStartScreen, startDemo, waitForStatus } from './session.js';
import { childWithFinding } from './trace-seek.js';

// The host inherits this: recordings land here, not in ~/.pipescope/traces.
const traceDir = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-process-'));
process.env.PIPESCOPE_TRACE_DIR = traceDir;
afterAll(() => rmSync(traceDir, { recursive: true, force: true }));

function row(page: Page, pid: number, marks = ''): ReturnType<Page['locator']> {
  return page.locator(`[data-testid="process-row"][data-pid="${pid}"]${marks}`);
}

/** The process panel is on sampling this platform (Linux in CI): say so when it is not. */
async function expectSampled(page: Page): Promise<void> {
  await page
    .locator('[data-testid="process-state"]:is([data-state="sampled"], [data-state="unavailable"])')
    .waitFor({ timeout: SOON });
  const state = await page.getByTestId('process-state').getAttribute('data-state');
  if (state === 'unavailable') {
    const why = await page.getByTestId('process-unavailable').textContent();
    expect(why).toMatch(/^Process evidence is not available on this platform: .+/);
  }
  expect(state, 'process sampling works on Linux').toBe('sampled');
}

/** Where the recorded trace shows the child and its subprocess-blocked finding (trace-seek.ts). */
function seekPoint(file: string): number {
  try {
    return childWithFinding(readFileSync(file, 'utf8'), 'subprocess-blocked');
  } catch (e) {
    throw new Error(`${(e as Error).message} in ${file}`);
  }
}

describe.runIf(chromiumAvailable())('process panel', () => {
  const app = setupApp();

  it('oversized-result, reader paused: the server row, its activity, and the finding that names it', async () => {
    const { page } = app;
    await startDemo(page, 'oversized-result');
    await expectSampled(page);
    const pid = await serverPid(page);
    expect(pid).not.toBeNull();
    const server = row(page, pid ?? -1, '[data-depth="0"]');
    await server.waitFor({ timeout: SOON });
    // Its stdio, and who holds the other end (Pipescope spawned it: it holds all three).
    const stdout = server.locator('xpath=following-sibling::tr[1]').locator('[data-fd="1"]');
    expect(await stdout.textContent()).toMatch(/1 stdout (pipe|socket):\[\d+\]/);
    expect(await page.locator(`tr.stdio-row[data-pid="${pid}"]`).textContent()).toMatch(/⇄ \d+ /);

    await page.getByTestId('reader-paused').click();
    await page.locator('[data-testid="demo-controls"][data-reader="paused"]').waitFor({
      timeout: SOON,
    });
    const id = await callTool(page, 'dump');
    await waitForStatus(page, id, 'pending');
    await page.getByTestId('finding-server-write-blocked').waitFor({ timeout: SOON });

    // The finding's evidence is the server: its row is marked and carries the code.
    const marked = row(
      page,
      pid ?? -1,
      '[data-evidence="true"][data-level="error"][data-findings~="server-write-blocked"]',
    );
    await marked.waitFor({ timeout: SOON }).catch(async (e: unknown) => {
      const rows = await page
        .locator('[data-testid="process-row"]')
        .evaluateAll((els) => els.map((el) => el.outerHTML.slice(0, 400)));
      const finding = await page.getByTestId('finding-server-write-blocked').textContent();
      throw new Error(`${String(e)}\nrows: ${rows.join('\n')}\nfinding: ${finding}`);
    });
    expect(await marked.locator('.evidence-chip').textContent()).toBe('server-write-blocked');
    // What it does, in the same words as everywhere: a Node server with a non-blocking stdout
    // idles in its event loop with the rest buffered; a blocking writer sits in write(1).
    const kind = await marked.getAttribute('data-activity');
    expect(['event-loop', 'writing']).toContain(kind);
    const activity = (await marked.getByTestId('process-activity').textContent()) ?? '';
    expect(activity).toMatch(kind === 'writing' ? /^writing stdout/ : /^idle in its event loop/);
    // The findings panel shows the evidence compactly, naming the same pid.
    const evidence = page
      .getByTestId('finding-server-write-blocked')
      .getByTestId('finding-evidence');
    expect(await evidence.getAttribute('data-pid')).toBe(String(pid));
    expect(await evidence.textContent()).toMatch(new RegExp(`^pid ${pid} · `));
    console.log(`[e2e] process: server ${pid} ${activity}`);

    // Drained, the answer goes out: the row stays, the request completes.
    await page.getByTestId('reader-drain').click();
    await waitForStatus(page, id, 'completed', 30_000);
    await server.waitFor({ timeout: SOON });
  });

  it('subprocess-blocked: the child under the server is blocked in write() and is the evidence', async () => {
    const { page } = app;
    await startDemo(page, 'subprocess-blocked');
    await expectSampled(page);
    const pid = await serverPid(page);
    await callTool(page, 'run');
    await page.getByTestId('finding-subprocess-blocked').waitFor({ timeout: SOON });
    const child = page.locator(
      '[data-testid="process-row"][data-depth="1"][data-evidence="true"][data-findings~="subprocess-blocked"]',
    );
    await child.waitFor({ timeout: SOON });
    expect(await child.getAttribute('data-activity')).toBe('writing');
    await page
      .locator('[data-testid="process-row"][data-depth="1"][data-stuck="true"]')
      .waitFor({ timeout: SOON });
    expect(await child.getByTestId('process-activity').textContent()).toMatch(
      /^writing stdout \(65,536 B\), blocked \d+\.\d s$/,
    );
    // The server itself is not the evidence here: it idles, waiting for its child.
    expect(await row(page, pid ?? -1).getAttribute('data-evidence')).toBe('false');
    expect(await page.locator('[data-testid="process-row"]').count()).toBeGreaterThanOrEqual(2);
  });

  it('a recorded session’s trace shows the process panel at the seek position', async () => {
    const { page } = app;
    await startDemo(page, 'subprocess-blocked');
    await expectSampled(page);
    await page.getByTestId('record-toggle').click();
    await page.locator('[data-testid="record"][data-state="recording"]').waitFor({ timeout: SOON });
    await callTool(page, 'run');
    await page
      .locator('[data-testid="process-row"][data-depth="1"][data-evidence="true"]')
      .waitFor({ timeout: SOON });
    await page.getByTestId('stop-session').click();
    await page.locator('[data-testid="record"][data-state="finished"]').waitFor({ timeout: SOON });
    const file = (await page.getByTestId('recording-path').textContent()) ?? '';

    await showStartScreen(page);
    await page.getByTestId('trace-file-input').setInputFiles(file);
    const view = page.locator('[data-testid="session-view"][data-read-only="true"]');
    await view.waitFor({ timeout: SOON });
    // A recorded tree with the child in it, its finding raised: the stop may have sampled once
    // more, the server a zombie and its child gone, so the trace's end is not that moment.
    const seekTo = seekPoint(file);
    // (A slider snaps to its step, 1 ms for a trace under 10 s: the wait below is the check.)
    await page.getByTestId('trace-scrubber').fill(String(seekTo));
    const sampled = view.locator('[data-testid="process-state"][data-state="sampled"]');
    await sampled.waitFor({ timeout: SOON });
    const marked = view.locator(
      '[data-testid="process-row"][data-depth="1"][data-evidence="true"][data-findings~="subprocess-blocked"]',
    );
    await marked.waitFor({ timeout: SOON }).catch(async (e: unknown) => {
      const rows = await view
        .locator('[data-testid="process-row"]')
        .evaluateAll((els) => els.map((el) => el.outerHTML.slice(0, 300)));
      const findings = await view.getByTestId('findings-panel').textContent();
      throw new Error(`${String(e)}\nrows: ${rows.join('\n')}\nfindings: ${findings}`);
    });
    // At 0 there is no sample yet; at the end, a sample again (whatever the stop left).
    await page.getByTestId('trace-scrubber').fill('0');
    await page.locator('[data-testid="trace-bar"][data-t="0"]').waitFor({ timeout: SOON });
    await view
      .locator('[data-testid="process-state"][data-state="waiting"]')
      .waitFor({ timeout: SOON });
    expect(await view.getByTestId('process-row').count()).toBe(0);
    const duration = await page.getByTestId('trace-bar').getAttribute('data-duration');
    await page.getByTestId('trace-scrubber').fill(String(duration));
    await sampled.waitFor({ timeout: SOON });
    // And back at the moment of the block, the child marked again.
    await page.getByTestId('trace-scrubber').fill(String(seekTo));
    await marked.waitFor({ timeout: SOON });
  });
});
