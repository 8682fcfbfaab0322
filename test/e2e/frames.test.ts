/**
 * The frames log in the real browser: stdout pollution shows up as a parse-error row with a
 * finding, and the frame viewer pages an 8 MiB frame without it ever crossing the WebSocket
 * whole (the page's received bytes are counted with playwright's WebSocket events).
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { callTool, counter, MiB, SOON, startDemo, waitForStatus } from './session.js';
import { recordWsTraffic } from './ws-traffic.js';

const KiB = 1024;

/** The rendered frame row whose exact size (the size cell's title) is at least `min` bytes. */
async function rowAtLeast(page: Page, kind: string, min: number): Promise<Locator | null> {
  for (const row of await page.locator(`[data-testid="frame-row"][data-kind="${kind}"]`).all()) {
    const title = (await row.locator('.ps-col-size').getAttribute('title')) ?? '';
    const bytes = Number(title.replace(/[^\d]/g, ''));
    if (bytes >= min) return row;
  }
  return null;
}

describe.runIf(chromiumAvailable())('frames log and viewer', () => {
  const traffic = recordWsTraffic();
  const app = setupApp({ beforeNavigate: (page) => traffic.attach(page) });

  it('stdout-pollution: a tool call logs to stdout → parse-error row and stdout-pollution', async () => {
    const { page } = app;
    // Without the start-up banner, the only pollution is the one the tool call causes.
    await startDemo(page, 'stdout-pollution', { banner: 'false' });
    const parseErrors = page.locator('[data-testid="frame-row"][data-kind="parse-error"]');
    expect(await counter(page, 'parse-errors')).toBe(0);
    expect(await parseErrors.count()).toBe(0);
    expect(await page.getByTestId('finding-stdout-pollution').count()).toBe(0);

    const id = await callTool(page, 'echo', { text: 'hello' });
    await waitForStatus(page, id, 'completed');
    await parseErrors.first().waitFor({ timeout: SOON });
    await page.getByTestId('finding-stdout-pollution').waitFor({ timeout: SOON });
    await expect.poll(() => counter(page, 'parse-errors')).toBe(1);
    expect(await parseErrors.first().textContent()).toContain('tool called: echo');
  });

  it('the viewer pages an 8 MiB frame: never fetched whole', async () => {
    const { page } = app;
    const atStart = traffic.total();
    await startDemo(page, 'oversized-result');
    const id = await callTool(page, 'dump');
    await waitForStatus(page, id, 'completed', 30_000);
    await expect.poll(() => counter(page, 'largest-frame')).toBeGreaterThan(8 * MiB);
    const session = traffic.since(atStart);

    let row: Locator | null = null;
    await expect
      .poll(
        async () => {
          row = await rowAtLeast(page, 'response', 8 * MiB);
          return row !== null;
        },
        { timeout: SOON, message: 'no ≥ 8 MiB response row in the frames log' },
      )
      .toBe(true);
    const bigRow = row as Locator | null;
    if (!bigRow) throw new Error('unreachable: the poll found the row');
    const beforeOpen = traffic.total();
    await bigRow.click();
    const viewer = page.locator('[data-testid="frame-viewer"][data-state="ready"]');
    await viewer.waitFor({ timeout: SOON });
    const loaded = page.locator('.ps-fv-meta dd').nth(3);
    await expect.poll(() => loaded.textContent()).toMatch(/^81,920 bytes of 8,388,\d{3} bytes$/);
    const opening = traffic.since(beforeOpen);

    // One "Load more" page, then close: the viewer fetches 64 KiB, not the frame.
    await page.getByRole('button', { name: /Load more/ }).click();
    await expect.poll(() => loaded.textContent()).toMatch(/^147,456 bytes of /);
    const whileOpen = traffic.since(beforeOpen);
    await page.keyboard.press('Escape');
    await page.getByTestId('frame-viewer').waitFor({ state: 'detached', timeout: SOON });

    console.log(
      `[e2e] WebSocket bytes received: session start→dump completed ${session.bytes} B in ` +
        `${session.messages} messages (largest ${session.largest} B); opening the viewer ` +
        `${opening.bytes} B in ${opening.messages} (largest ${opening.largest} B); open → ` +
        `load more ${whileOpen.bytes} B in ${whileOpen.messages} (largest ${whileOpen.largest} B)`,
    );
    // 64 KiB head + 16 KiB tail (+ JSON envelopes and the snapshots meanwhile).
    expect(opening.bytes).toBeGreaterThanOrEqual(80 * KiB);
    expect(opening.bytes).toBeLessThan(512 * KiB);
    expect(whileOpen.bytes).toBeLessThan(1 * MiB);
    // Nor did the frame travel to the page in the snapshots while it was produced.
    expect(session.largest).toBeLessThan(1 * MiB);
    expect(session.bytes).toBeLessThan(2 * MiB);
  });

  it('a reload keeps the evidence: the frames log, the 8 MiB frame, requests and the charts', async () => {
    const { page } = app;
    const sid = await startDemo(page, 'oversized-result');
    const id = await callTool(page, 'dump');
    await waitForStatus(page, id, 'completed', 30_000);
    const rows = page.locator('[data-testid="frame-row"]');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(6);
    const before = await rows.count();

    await page.reload();
    await page.locator('main[data-state="ready"]').waitFor({ timeout: SOON });
    await page.getByTestId(`tab-${sid}`).click();
    await page
      .locator(`[data-testid="session-view"][data-session-id="${sid}"][data-handshake="done"]`)
      .waitFor({ timeout: SOON });
    // Everything it showed before, not "No frames yet": the log, the large frame (openable),
    // the request's final status and the largest-frame counter.
    await expect.poll(() => rows.count(), { timeout: SOON }).toBeGreaterThanOrEqual(before);
    await waitForStatus(page, id, 'completed');
    expect(await rowAtLeast(page, 'response', 8 * MiB)).not.toBeNull();
    expect(await counter(page, 'largest-frame')).toBeGreaterThan(8 * MiB);
    expect(await page.locator('.recharts-surface').count()).toBeGreaterThan(0);
  });
});
