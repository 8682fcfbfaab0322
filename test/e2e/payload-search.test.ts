/**
 * DevTools' Network panel habits in the browser: a search in payloads that the host runs over
 * every frame it holds finds a string in the 5,000th of 6,000 notifications (and one older
 * than the frames the list keeps, which the viewer still opens); Clear hides the list and the
 * search still sees the frames; the requests table sorts by latency and shows a cancelled
 * request's time to its cancellation.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { newRequestAfter, requestRow, SOON, startDemo, waitForStatus } from './session.js';
import { shoot } from './shots.js';

async function flood(page: Page, args: Record<string, string>): Promise<string> {
  await page.getByTestId('tool-select').selectOption('flood');
  for (const [name, value] of Object.entries(args)) await page.locator(`#arg-${name}`).fill(value);
  return newRequestAfter(page, () => page.getByTestId('send-tool').click());
}

async function searchPayloads(page: Page, text: string): Promise<void> {
  const payloads = page.getByTestId('frames-search-payloads');
  if (!(await payloads.isChecked())) await payloads.check();
  await page.getByTestId('frames-filter').fill(text);
  await page.locator('[data-testid="frames-count"][data-status="done"]').waitFor({ timeout: SOON });
}

async function hitSeqs(page: Page): Promise<number[]> {
  const seqs: number[] = [];
  for (const row of await page.getByTestId('frame-hit').all())
    seqs.push(Number(await row.getAttribute('data-seq')));
  return seqs;
}

describe.runIf(chromiumAvailable())('payload search and the lists', () => {
  const app = setupApp();

  it('finds a string in the 5,000th frame, and one older than the list keeps', async () => {
    const { page } = app;
    await startDemo(page, 'notification-flood');
    const early = await flood(page, { count: '300', mark: 'early-needle', markAt: '100' });
    await waitForStatus(page, early, 'completed', 30_000);
    const late = await flood(page, { count: '6000', mark: 'late-needle é😀', markAt: '5000' });
    await waitForStatus(page, late, 'completed', 60_000);

    // A filter on method / id / #seq knows nothing of payloads.
    await page.getByTestId('frames-filter').fill('needle');
    expect(await page.getByTestId('frame-row').count()).toBe(0);

    await searchPayloads(page, 'needle');
    const seqs = await hitSeqs(page);
    // The two calls (their arguments name the marks) and the two marked notifications.
    expect(seqs).toHaveLength(4);
    const hits = page.getByTestId('frame-hit');
    const notes = hits.filter({ hasText: 'notifications/message' });
    const late5000 = notes.filter({ hasText: 'late-needle' });
    expect(await late5000.count()).toBe(1);
    expect(await late5000.locator('mark').textContent()).toBe('needle');
    expect(await late5000.textContent()).toContain('late-needle é😀');
    const lateSeq = Number(await late5000.getAttribute('data-seq'));
    expect(lateSeq).toBeGreaterThan(5000);
    expect(await page.getByTestId('frames-count').textContent()).toMatch(
      /^4 frames match · searched 6,\d{3} frames/,
    );
    await shoot(page, 'payload-search', async () => {
      await page.getByTestId('frames-count').scrollIntoViewIfNeeded();
    });

    // The early mark is older than the 5,000 summaries the list keeps: the host still has it,
    // and the viewer opens it from the search.
    const earlyHit = notes.filter({ hasText: 'early-needle' });
    const earlySeq = Number(await earlyHit.getAttribute('data-seq'));
    expect(earlySeq).toBeLessThan(lateSeq - 5000);
    await earlyHit.click();
    const viewer = page.locator(`[data-testid="frame-viewer"][data-state="ready"]`);
    await viewer.waitFor({ timeout: SOON });
    expect(await page.getByTestId('frame-viewer').getAttribute('aria-label')).toBe(
      `Frame ${earlySeq}`,
    );
    expect(await viewer.textContent()).toContain('early-needle');
    await page.keyboard.press('Escape');

    // Case: "NEEDLE" matches unless Aa asks for the case.
    await searchPayloads(page, 'NEEDLE');
    expect(await hitSeqs(page)).toEqual(seqs);
    await page.getByTestId('frames-search-case').check();
    await page
      .locator('[data-testid="frames-count"][data-status="done"]')
      .waitFor({ timeout: SOON });
    await expect.poll(() => page.getByTestId('frame-hit').count()).toBe(0);
    await page.getByTestId('frames-search-case').uncheck();

    // Clear hides what came so far; the search (the host's frames) is not cleared.
    await page.getByTestId('frames-filter').fill('');
    await page.getByTestId('frames-clear').click();
    await expect.poll(() => page.getByTestId('frame-row').count()).toBe(0);
    await page.getByTestId('frames-show-all').waitFor({ timeout: SOON });
    const after = await flood(page, { count: '3', mark: 'after-clear', markAt: '2' });
    await waitForStatus(page, after, 'completed', SOON);
    await expect.poll(() => page.getByTestId('frame-row').count(), { timeout: SOON }).toBe(5);
    await searchPayloads(page, 'needle');
    // Cleared frames are hidden from the hits too; the new call is not a needle.
    expect(await page.getByTestId('frame-hit').count()).toBe(0);
    await page.getByTestId('frames-show-all').click();
    await expect.poll(() => hitSeqs(page), { timeout: SOON }).toEqual(seqs);
  });

  it('sorts requests by latency and shows the time to a cancellation', async () => {
    const { page } = app;
    await startDemo(page, 'notification-flood');
    // Long enough to be cancelled mid-way on a busy machine (the flood stops when cancelled).
    const big = await flood(page, { count: '200000' });
    // Cancel it while it floods: its row shows ⊘ and the time to the cancellation.
    await page.getByTestId(`cancel-${big}`).click();
    const row = requestRow(page, big);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: SOON }).toBe('cancelled');
    const small = await flood(page, { count: '1' });
    await waitForStatus(page, small, 'completed', SOON);
    const cell = row.locator('td[data-latency]');
    expect(await cell.getAttribute('data-latency')).toBe('cancel');
    expect(await cell.textContent()).toMatch(/^⊘ \d/);
    expect(await cell.getAttribute('title')).toMatch(/^cancelled .* after it was sent; no answer/);

    await page.getByTestId('requests-sort-latency').click();
    const order = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (const r of await page.locator('tr[data-testid^="request-row-"]').all())
        ids.push((await r.getAttribute('data-testid'))?.slice('request-row-'.length) ?? '');
      return ids;
    };
    // Slowest first: the cancelled flood before the one-notification call.
    const desc = await order();
    expect(desc.indexOf(big)).toBeLessThan(desc.indexOf(small));
    await page.getByTestId('requests-sort-latency').click();
    const asc = await order();
    expect(asc.indexOf(small)).toBeLessThan(asc.indexOf(big));
    await page.getByTestId('requests-sort-reset').click();
    expect((await order())[0]).toBe(small);
  });
});
