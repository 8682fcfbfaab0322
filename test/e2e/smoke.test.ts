import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, type Harness, openApp } from './harness.js';

describe.runIf(chromiumAvailable())('browser mode smoke', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('loads the renderer with the demo catalog, no Node in the page', async () => {
    await h.page.waitForSelector('main[data-state="ready"]', { timeout: 20_000 });
    const globals = await h.page.evaluate(() => [
      typeof (globalThis as { require?: unknown }).require,
      typeof (globalThis as { process?: unknown }).process,
    ]);
    expect(globals).toEqual(['undefined', 'undefined']);
    await expect(
      h.page.getByText('oversized-result', { exact: false }).first().isVisible(),
    ).resolves.toBe(true);
  });

  it('the token leaves the address bar and the history once the page has loaded; a reload still works', async () => {
    const { page } = h;
    await page.waitForSelector('main[data-state="ready"]', { timeout: 20_000 });
    expect(page.url()).not.toContain('token=');
    expect(await page.evaluate('location.search')).toBe('');
    await page.reload();
    await page.waitForSelector('main[data-state="ready"]', { timeout: 20_000 });
    expect(page.url()).not.toContain('token=');
    await page.getByTestId('start-screen').waitFor({ timeout: 20_000 });
  });
});
