/**
 * Traces in the browser-mode UI: record a live session with the Record toggle, stop it, then
 * open the trace (file input, and a dropped file via a DataTransfer) as a read-only dashboard
 * with the recorded counters and findings; the scrubber at 0 takes the counters back to 0; the
 * Markdown export downloads. Set PIPESCOPE_E2E_SCREENSHOTS=<dir> to keep a screenshot of the view.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { callTool, counter, SOON, showStartScreen, startDemo, waitForStatus } from './session.js';

// The host inherits this: recordings land here, not in ~/.pipescope/traces.
const traceDir = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-traces-'));
process.env.PIPESCOPE_TRACE_DIR = traceDir;
afterAll(() => rmSync(traceDir, { recursive: true, force: true }));

function traceView(page: Page) {
  return page.locator('[data-testid="session-view"][data-read-only="true"]');
}

/** Records a malformed-json session that hits its parse error; resolves with the trace path. */
async function recordSession(page: Page): Promise<{ file: string; stdoutBytes: number }> {
  await startDemo(page, 'malformed-json');
  await page.getByTestId('record-toggle').click();
  await page.locator('[data-testid="record"][data-state="recording"]').waitFor({ timeout: SOON });
  const id = await callTool(page, 'broken');
  await waitForStatus(page, id, 'completed');
  await page.getByTestId('finding-stdout-pollution').waitFor({ timeout: SOON });
  await page.getByTestId('stop-session').click();
  await page.locator('[data-testid="record"][data-state="finished"]').waitFor({ timeout: SOON });
  const file = (await page.getByTestId('recording-path').textContent()) ?? '';
  expect(path.dirname(file)).toBe(traceDir);
  return { file, stdoutBytes: await counter(page, 'stdout') };
}

describe.runIf(chromiumAvailable())('traces', () => {
  const app = setupApp();

  it('records from the UI, opens the trace read-only, scrubs to 0 and exports Markdown', async () => {
    const { page } = app;
    const { file, stdoutBytes } = await recordSession(page);

    await showStartScreen(page);
    await page.getByTestId('trace-file-input').setInputFiles(file);
    const view = traceView(page);
    await view.waitFor({ timeout: SOON });
    await page.getByTestId('trace-badge').waitFor();
    expect(await page.getByTestId('trace-file').textContent()).toBe(path.basename(file));
    expect(await page.getByTestId('trace-command').textContent()).toMatch(/malformed-json/);
    // Read-only: the same dashboard without the controls that act on a server.
    expect(await page.getByTestId('send-tool').count()).toBe(0);
    expect(await page.getByTestId('stop-session').count()).toBe(0);
    expect(await view.locator('[data-testid^="cancel-"]').count()).toBe(0);
    // The end state: the recorded counters and findings.
    await page.getByTestId('finding-stdout-pollution').waitFor({ timeout: SOON });
    await expect.poll(() => counter(page, 'stdout'), { timeout: SOON }).toBe(stdoutBytes);
    expect(await counter(page, 'parse-errors')).toBe(1);

    const bar = page.getByTestId('trace-bar');
    const duration = Number(await bar.getAttribute('data-duration'));
    expect(duration).toBeGreaterThan(0);
    await page.getByTestId('trace-scrubber').fill('0');
    await page.locator('[data-testid="trace-bar"][data-t="0"]').waitFor({ timeout: SOON });
    await expect.poll(() => counter(page, 'stdout'), { timeout: SOON }).toBe(0);
    await expect.poll(() => counter(page, 'frames'), { timeout: SOON }).toBe(0);
    expect(await page.getByTestId('finding-stdout-pollution').count()).toBe(0);

    await page.getByTestId('trace-scrubber').fill(String(duration));
    await page.getByTestId('finding-stdout-pollution').waitFor({ timeout: SOON });
    const shots = process.env.PIPESCOPE_E2E_SCREENSHOTS;
    if (shots) await page.screenshot({ path: path.join(shots, 'trace-view.png') });

    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: SOON }),
      page.getByTestId('export-md').click(),
    ]);
    expect(download.suggestedFilename()).toBe(path.basename(file).replace(/\.jsonl$/, '.md'));
    const saved = await download.path();
    expect(readFileSync(saved, 'utf8')).toContain('stdout-pollution');
  });

  it('opens a trace dropped on the window (streamed to the host in chunks)', async () => {
    const { page } = app;
    const { file } = await recordSession(page);
    await showStartScreen(page);
    const text = readFileSync(file, 'utf8');
    // Runs in the page (a string: this file is type-checked without the DOM library).
    await page.evaluate(`(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([${JSON.stringify(text)}], 'dropped-incident.jsonl'));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    })()`);
    await traceView(page).waitFor({ timeout: SOON });
    expect(await page.getByTestId('trace-file').textContent()).toBe('dropped-incident.jsonl');
    await page.getByTestId('finding-stdout-pollution').waitFor({ timeout: SOON });
    expect(await counter(page, 'stdout')).toBeGreaterThan(0);
  });
});
