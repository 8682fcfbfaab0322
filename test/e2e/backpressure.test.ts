/**
 * The oversized-result demo in the real browser: a paused reader blocks the server in write()
 * (server-write-blocked, active, process alive, stdout frozen), draining completes the 8 MiB
 * response and resolves the finding (when, after how long). Also the `p` shortcut that toggles
 * the reader.
 */
import { describe, expect, it } from 'vitest';
import { stillRunning } from '../fixtures/processes.js';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import {
  blurFields,
  callTool,
  counter,
  MiB,
  SOON,
  serverPid,
  startDemo,
  waitForStatus,
} from './session.js';
import { shoot } from './shots.js';

describe.runIf(chromiumAvailable())('backpressure: oversized-result', () => {
  const app = setupApp();

  it('paused reader → server-write-blocked with the server alive; drain → 8 MiB frame completes', async () => {
    const { page } = app;
    await startDemo(page, 'oversized-result');
    const processCounter = page.getByTestId('counter-process');
    expect(await processCounter.getAttribute('data-value')).toBe('running');

    await page.getByTestId('reader-paused').click();
    await page.locator('[data-testid="demo-controls"][data-reader="paused"]').waitFor({
      timeout: SOON,
    });
    const framesBefore = await counter(page, 'frames');
    const id = await callTool(page, 'dump');
    await waitForStatus(page, id, 'pending');
    const stdoutAtCall = await counter(page, 'stdout');

    // The engine raises the finding only after the reader has been idle past its budget (1 s)
    // with a response owed: the finding itself is the first half of the observation window.
    const finding = page.getByTestId('finding-server-write-blocked');
    await finding.waitFor({ timeout: SOON });
    // An episode: it holds now, and says since when.
    expect(await finding.getAttribute('data-state')).toBe('active');
    expect(await finding.getByTestId('finding-state').textContent()).toBe('active');
    expect(await finding.getByTestId('finding-episode').textContent()).toMatch(/^active since /);
    expect(await processCounter.getAttribute('data-value')).toBe('running');
    await expect.poll(() => processCounter.textContent()).toBe('alive');
    // And the OS agrees: the pid the dashboard shows is a live process, not a zombie.
    const pid = await serverPid(page);
    expect(pid).not.toBeNull();
    expect(stillRunning([pid ?? -1])).toHaveLength(1);
    await expect
      .poll(() => page.getByTestId('counter-stdout-rate').textContent())
      .toMatch(/not reading/);
    const stdoutAtFinding = await counter(page, 'stdout');
    expect(stdoutAtFinding).toBe(stdoutAtCall);

    // Second half: let the dashboard render two more "time since last byte" updates (the
    // session clock moved on) and check stdout still has not moved.
    const lastByte = page.getByTestId('counter-last-byte');
    for (let i = 0; i < 2; i++) {
      const seen = await lastByte.textContent();
      await expect.poll(() => lastByte.textContent(), { timeout: SOON }).not.toBe(seen);
    }
    expect(await counter(page, 'stdout')).toBe(stdoutAtFinding);
    await expect(page.getByTestId(`request-row-${id}`).getAttribute('data-status')).resolves.toBe(
      'pending',
    );

    await page.getByTestId('reader-drain').click();
    await page.locator('[data-testid="demo-controls"][data-reader="drain"]').waitFor({
      timeout: SOON,
    });
    await waitForStatus(page, id, 'completed', 30_000);
    // The reader resumed and the answer came: the condition ended, the finding stays as
    // history, resolved, with when and after how long (the issue: it stayed an active ERROR).
    await page
      .locator('[data-testid="finding-server-write-blocked"][data-state="resolved"]')
      .waitFor({ timeout: SOON });
    expect(await finding.getByTestId('finding-state').textContent()).toBe('resolved');
    expect(await finding.getByTestId('finding-episode').textContent()).toMatch(
      /^resolved at \d+\.\d{3} s, after \d/,
    );
    expect(await page.getByTestId('findings-count').getAttribute('data-active')).toBe('0');
    await shoot(page, 'finding-resolved');
    await expect.poll(() => counter(page, 'largest-frame')).toBeGreaterThan(8 * MiB);
    expect(await counter(page, 'stdout')).toBeGreaterThan(stdoutAtFinding + 8 * MiB);
    expect(await counter(page, 'frames')).toBeGreaterThan(framesBefore);
    expect(await processCounter.getAttribute('data-value')).toBe('running');
    console.log(
      `[e2e] oversized-result: stdout held at ${stdoutAtFinding} B while paused; after drain ` +
        `stdout ${await counter(page, 'stdout')} B, largest frame ${await counter(page, 'largest-frame')} B`,
    );
  });

  it('`p` toggles the reader between paused and drain', async () => {
    const { page } = app;
    await startDemo(page, 'oversized-result');
    const controls = page.getByTestId('demo-controls');
    expect(await controls.getAttribute('data-reader')).toBe('drain');
    await blurFields(page);
    await page.keyboard.press('p');
    await page.locator('[data-testid="demo-controls"][data-reader="paused"]').waitFor({
      timeout: SOON,
    });
    await page.keyboard.press('p');
    await page.locator('[data-testid="demo-controls"][data-reader="drain"]').waitFor({
      timeout: SOON,
    });
  });

  it('`p` typed into a field is text, not a shortcut', async () => {
    const { page } = app;
    await startDemo(page, 'oversized-result');
    await page.getByTestId('tool-select').selectOption('echo');
    const text = page.locator('#arg-text');
    await text.fill('');
    await text.press('p');
    await expect.poll(() => text.inputValue()).toBe('p');
    // Had the typed `p` toggled the reader (to paused), this one would toggle it back to drain.
    await blurFields(page);
    await page.keyboard.press('p');
    await page.locator('[data-testid="demo-controls"][data-reader="paused"]').waitFor({
      timeout: SOON,
    });
  });
});
