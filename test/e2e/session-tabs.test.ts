/**
 * Sessions that stay tidy (issue 22, point 1): ten sessions of one demo at 1280 px get ten
 * names ("healthy", "healthy #2", …), the active tab stays in view beside the connection badge,
 * the rest are one click away in the "⋯ N more" list, Close stopped and Close others do what
 * they say, and the start screen lists the sessions a page load finds. No favicon 404 on load.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { SOON, showStartScreen, startDemo } from './session.js';
import { shoot } from './shots.js';

const failedLoads: string[] = [];
const iconLoads: number[] = [];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The tab is on the row, whole, and clear of the menu button and the connection badge. */
async function expectTabInView(page: Page, id: string): Promise<void> {
  const tab = page.getByTestId(`tab-${id}`);
  await expect.poll(() => tab.getAttribute('data-overflow'), { timeout: SOON }).toBeNull();
  expect(await tab.isVisible()).toBe(true);
  const t = await box(tab);
  const nav = await box(page.locator('nav.tabs'));
  expect(t.x).toBeGreaterThanOrEqual(nav.x - 0.5);
  expect(t.x + t.width).toBeLessThanOrEqual(nav.x + nav.width + 0.5);
  for (const other of [page.getByTestId('session-menu-button'), page.locator('.host-status')]) {
    expect(overlaps(t, await box(other))).toBe(false);
  }
}

/** The tab ids in order, read at one moment (tabs that go away mid-read cannot stall it). */
function tabIds(page: Page): Promise<string[]> {
  return page.$$eval('nav.tabs > [data-testid^="tab-"]:not([data-testid="tab-start"])', (tabs) =>
    tabs.map((t) => (t.getAttribute('data-testid') ?? '').slice('tab-'.length)),
  );
}

async function hiddenTabs(page: Page): Promise<string[]> {
  const ids: string[] = [];
  for (const tab of await page.locator('nav.tabs > [data-overflow="true"]').all()) {
    ids.push(((await tab.getAttribute('data-testid')) ?? '').slice('tab-'.length));
  }
  return ids;
}

async function openMenu(page: Page): Promise<Locator> {
  const menu = page.getByTestId('session-menu');
  if (!(await menu.isVisible())) await page.getByTestId('session-menu-button').click();
  await menu.waitFor({ timeout: SOON });
  return menu;
}

async function showVia(page: Page, id: string): Promise<void> {
  const menu = await openMenu(page);
  await menu.getByTestId(`session-menu-item-${id}`).locator('.session-menu-open').click();
  await page
    .locator(`[data-testid="session-view"][data-session-id="${id}"]`)
    .waitFor({ timeout: SOON });
}

describe.runIf(chromiumAvailable())('sessions that stay tidy', () => {
  const app = setupApp({
    beforeNavigate: (page) => {
      page.on('response', (r) => {
        if (r.status() >= 400) failedLoads.push(`${r.status()} ${r.url()}`);
        if (/\/assets\/icon-[\w-]+\.svg$/.test(r.url())) iconLoads.push(r.status());
      });
    },
  });

  it('loads without a 404: the page names its icon and the host serves it', async () => {
    await app.page.locator('main[data-state="ready"]').waitFor({ timeout: SOON });
    await expect.poll(() => iconLoads, { timeout: SOON }).toEqual([200]);
    expect(failedLoads).toEqual([]);
  });

  it('ten sessions at 1280 px: distinct names, the active tab in view, every one reachable', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1280, height: 800 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(await startDemo(page, 'healthy'));
      // The one just started is the active tab, and it is in view whatever the count.
      await expectTabInView(page, ids[i]);
    }
    expect(await tabIds(page)).toEqual(ids);
    const titles = await page.locator('nav.tabs .tab-title').allTextContents();
    expect(titles).toEqual(['healthy', ...ids.slice(1).map((_, i) => `healthy #${i + 2}`)]);

    // The row has no room for ten: the list says how many it holds back, and has all ten.
    const hidden = await hiddenTabs(page);
    expect(hidden.length).toBeGreaterThan(0);
    expect(hidden).not.toContain(ids[9]);
    expect(await page.getByTestId('session-menu-button').textContent()).toBe(
      `⋯ ${hidden.length} more`,
    );
    const menu = await openMenu(page);
    expect(await menu.locator('[data-testid^="session-menu-item-"]').count()).toBe(10);
    expect(await menu.locator('[data-hidden="true"]').count()).toBe(hidden.length);
    expect(await menu.getByTestId(`session-menu-item-${ids[0]}`).textContent()).toMatch(
      /healthy\s*running/,
    );
    await shoot(page, 'tabs-overflow-menu', async () => {
      await openMenu(page);
    });

    // Each held-back session: chosen from the list, it is shown and its tab comes into view.
    for (const id of hidden) {
      await showVia(page, id);
      await expectTabInView(page, id);
      expect(await page.getByTestId('session-menu').count()).toBe(0);
    }
    // Close stopped closes the servers that are over; Close others all but the one shown.
    const stopped = [ids[1], ids[4], ids[8]];
    for (const id of stopped) {
      await showVia(page, id);
      await page.getByTestId('stop-session').click();
      await page
        .locator(
          `[data-testid="session-view"][data-session-id="${id}"][data-session-state="stopped"]`,
        )
        .waitFor({ timeout: SOON });
      expect(await page.getByTestId('session-state').textContent()).toBe('stopped by you');
    }
    const list = await openMenu(page);
    const closeStopped = list.getByTestId('close-stopped');
    expect(await closeStopped.textContent()).toBe('Close stopped (3)');
    await closeStopped.click();
    await expect
      .poll(() => tabIds(page), { timeout: SOON })
      .toEqual(ids.filter((id) => !stopped.includes(id)));
    expect(await list.getByTestId('close-stopped').isDisabled()).toBe(true);

    // The active one was stopped and closed: its neighbour is shown; keep it, close the rest.
    await showVia(page, ids[5]);
    await (await openMenu(page)).getByTestId('close-others').click();
    await expect.poll(() => tabIds(page), { timeout: SOON }).toEqual([ids[5]]);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('session-menu-button').textContent()).toBe('⋯');
  }, 90_000);

  it('the start screen lists the open sessions with their state and age, to open or close', async () => {
    const { page } = app;
    const id = await startDemo(page, 'healthy');
    // A page load finds the session in the host, and the list says so.
    await page.reload();
    await showStartScreen(page);
    const row = page.getByTestId(`start-session-${id}`);
    await row.waitFor({ timeout: SOON });
    expect(await row.locator('.start-session-state').textContent()).toBe('running');
    expect(await row.locator('.start-session-age').textContent()).toMatch(
      /^started (just now|\d+ (s|min) ago)$/,
    );
    await shoot(page, 'start-sessions');
    await page.getByTestId(`start-open-${id}`).click();
    await page
      .locator(`[data-testid="session-view"][data-session-id="${id}"]`)
      .waitFor({ timeout: SOON });
    await showStartScreen(page);
    await page.getByTestId(`start-close-${id}`).click();
    await page.getByTestId('start-sessions').waitFor({ state: 'detached', timeout: SOON });
    expect(await tabIds(page)).toEqual([]);
  });
});
