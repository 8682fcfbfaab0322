/**
 * Cancellation in the real browser: slow-producer honours Cancel (cancelled, then a fast
 * recovery probe), ignores-cancel answers anyway (late + cancel-ignored), `initialize` cannot be
 * cancelled, and Replay re-sends a request under a new id.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import {
  callTool,
  counter,
  newRequestAfter,
  requestRow,
  SOON,
  startDemo,
  waitForStatus,
} from './session.js';

/** Progress notifications received for a request, as its row's tag shows them ("3 progress"). */
async function progressCount(row: ReturnType<typeof requestRow>): Promise<number> {
  const m = /(\d+) progress/.exec((await row.textContent()) ?? '');
  return m ? Number(m[1]) : 0;
}

/** Waits until the server sent `n` more frames than `from` (the producer is working). */
async function framesGrow(page: Page, from: number, n: number): Promise<void> {
  await expect
    .poll(() => counter(page, 'frames'), { timeout: SOON })
    .toBeGreaterThanOrEqual(from + n);
}

describe.runIf(chromiumAvailable())('cancellation', () => {
  const app = setupApp();

  it('slow-producer: Cancel → cancelled, recovery probe answers fast; initialize has no Cancel', async () => {
    const { page } = app;
    await startDemo(page, 'slow-producer');
    const initialize = requestRow(page, '1');
    await expect.poll(() => initialize.textContent()).toMatch(/initialize/);
    await expect.poll(() => page.getByTestId('cancel-1').isDisabled()).toBe(true);

    // 600 steps × 50 ms = 30 s: far longer than the test, so only the cancel can end it.
    const frames = await counter(page, 'frames');
    const id = await callTool(page, 'produce', { steps: '600', delayMs: '50' });
    await waitForStatus(page, id, 'pending');
    await framesGrow(page, frames, 4);
    const cancel = page.getByTestId(`cancel-${id}`);
    expect(await cancel.isEnabled()).toBe(true);
    await cancel.click();
    await waitForStatus(page, id, 'cancelled');
    await expect.poll(() => counter(page, 'cancellations')).toBe(1);
    await expect.poll(() => cancel.isDisabled()).toBe(true);

    await page.getByTestId('recovery-probe').click();
    const result = page.getByTestId('recovery-result');
    await result.waitFor({ timeout: SOON });
    expect(await result.getAttribute('data-ok')).toBe('true');
    const text = (await result.textContent()) ?? '';
    expect(text).toMatch(/\bok\b/);
    const latency = /([\d.]+) (ms|s)\s*$/.exec(text.trim());
    expect(latency, `no latency in "${text}"`).not.toBeNull();
    const latencyMs = Number(latency?.[1]) * (latency?.[2] === 's' ? 1000 : 1);
    // "Fast": well inside the engine's slow-recovery budget.
    expect(latencyMs).toBeLessThan(1000);
    expect(await page.getByTestId('finding-slow-recovery').count()).toBe(0);
    console.log(`[e2e] slow-producer recovery probe: ${text.trim()}`);

    // The producer stopped: no answer ever arrives for the cancelled request.
    expect(await counter(page, 'late-responses')).toBe(0);
    expect(await page.getByTestId('finding-cancel-ignored').count()).toBe(0);
  });

  it('ignores-cancel: Cancel → cancelled, then the answer arrives late and cancel-ignored is raised', async () => {
    const { page } = app;
    await startDemo(page, 'ignores-cancel');
    // 40 steps × 100 ms: the server answers about 4 s after the call despite the cancel.
    const frames = await counter(page, 'frames');
    const id = await callTool(page, 'produce', { steps: '40', delayMs: '100' });
    await framesGrow(page, frames, 4);
    await page.getByTestId(`cancel-${id}`).click();
    await waitForStatus(page, id, 'cancelled');
    await waitForStatus(page, id, 'late', SOON);
    await page.getByTestId('finding-cancel-ignored').waitFor({ timeout: SOON });
    await expect.poll(() => counter(page, 'late-responses')).toBe(1);
  });

  // Known engine bug: RequestTable.progress() (electron/engine/session/request-table.ts) counts the
  // notification but does not call hooks.onChange, so no snapshot carries the new count and the
  // row's "N progress" tag stays hidden until the request ends. Flip to it() once fixed.
  it('a pending request shows its progress count', async () => {
    const { page } = app;
    await startDemo(page, 'slow-producer');
    const id = await callTool(page, 'produce', { steps: '600', delayMs: '50' });
    const row = requestRow(page, id);
    await expect.poll(() => progressCount(row), { timeout: 3_000 }).toBeGreaterThan(2);
    expect(await row.getAttribute('data-status')).toBe('pending');
  });

  it('Replay sends the request again under a new id, and it completes', async () => {
    const { page } = app;
    await startDemo(page, 'slow-producer');
    const first = await callTool(page, 'echo', { text: 'replay me' });
    await waitForStatus(page, first, 'completed');
    const again = await newRequestAfter(page, () => page.getByTestId(`replay-${first}`).click());
    expect(again).not.toBe(first);
    const row = requestRow(page, again);
    await expect.poll(() => row.textContent()).toMatch(/replay/);
    await waitForStatus(page, again, 'completed');
    expect(await requestRow(page, first).getAttribute('data-status')).toBe('completed');
  });
});
