/**
 * Nothing cut (issue 22, point 7): at 1024, 1280 and 1920 px the frame-size legend shows the
 * whole limit ("limit 128 MiB", not "limit 32.("), the paused reader's hint is whole words
 * ("stdout unread: the server blocks once the pipe fills", not "stdout unread…"), and one
 * stderr line is "1 line".
 */
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { SOON, startDemo } from './session.js';
import { shoot } from './shots.js';

/** Whether an element's content fits its box (nothing clipped or ellipsized). */
function fits(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (el) => el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1,
  );
}

describe.runIf(chromiumAvailable())('the dashboard cuts nothing', () => {
  const app = setupApp();

  it('the frame-size legend, the reader hint and the stderr count, at 1024, 1280 and 1920 px', async () => {
    const { page } = app;
    await startDemo(page, 'healthy');
    await page.getByTestId('reader-paused').click();
    const hint = page.locator('.control-hint');
    await hint.waitFor({ timeout: SOON });
    expect(await hint.textContent()).toBe('stdout unread: the server blocks once the pipe fills');
    await expect.poll(() => page.locator('.ps-log-count').last().textContent()).toBe('1 line');
    const legends = page.locator('.chart-legend-row');
    for (const width of [1024, 1280, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      await page.evaluate(
        'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))',
      );
      expect(await fits(hint), `reader hint at ${width} px`).toBe(true);
      const controls = await page.getByTestId('demo-controls').boundingBox();
      const box = await hint.boundingBox();
      expect(box && controls && box.x + box.width <= controls.x + controls.width + 0.5).toBe(true);
      expect(await legends.count()).toBe(3);
      for (const legend of await legends.all()) {
        expect(await fits(legend), `${await legend.textContent()} at ${width} px`).toBe(true);
      }
      expect(
        await page.getByTestId('chart-frame-sizes').locator('.chart-legend-row').textContent(),
      ).toContain('limit128 MiB');
    }
    await shoot(page, 'dashboard-paused');
  });
});
