/**
 * Dashboard steps shared by the e2e tests: start a demo or an imported server, call a tool from
 * the composer, read counters, close sessions. Every wait is on a renderer marker (data-testid,
 * data-state, data-status, data-value) with a bounded timeout; nothing sleeps.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

export const MiB = 1024 * 1024;
/** Upper bound for anything that should happen "soon" on a 2-core machine. */
export const SOON = 15_000;

/**
 * Polls `read` until `done` holds (for hooks, where vitest's expect.poll is not available);
 * resolves with the last value either way, so the caller asserts on it.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeout = SOON,
): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ids of the open session tabs, in tab order. */
export async function sessionIds(page: Page): Promise<string[]> {
  // One read of all of them: a tab asked for one at a time may close in between, and a locator
  // whose element is gone waits for it (30 s).
  const testIds = await page
    .locator('nav.tabs > [data-testid^="tab-"]')
    .evaluateAll((tabs) => tabs.map((t) => t.getAttribute('data-testid')));
  return testIds
    .filter((t): t is string => t !== null && t !== 'tab-start')
    .map((t) => t.slice('tab-'.length));
}

/**
 * Clicks `start` (a Start button somewhere on the start screen) and resolves with the id of the
 * session it opened, once that session's dashboard reports the handshake done.
 */
export async function openSessionBy(page: Page, start: Locator): Promise<string> {
  const before = new Set(await sessionIds(page));
  await start.click();
  let id: string | undefined;
  await expect
    .poll(
      async () => {
        id = (await sessionIds(page)).find((s) => !before.has(s));
        return id;
      },
      { timeout: SOON, message: 'no new session tab' },
    )
    .toBeDefined();
  const sid = id as string;
  await page
    .locator(`[data-testid="session-view"][data-session-id="${sid}"][data-handshake="done"]`)
    .waitFor({ timeout: SOON });
  return sid;
}

export async function showStartScreen(page: Page): Promise<void> {
  await page.locator('main[data-state="ready"]').waitFor({ timeout: SOON });
  await page.getByTestId('tab-start').click();
  await page.getByTestId('start-screen').waitFor({ state: 'visible', timeout: SOON });
}

/** Starts a catalog demo (knobs as typed on its card) and waits for its handshake. */
export async function startDemo(
  page: Page,
  demoId: string,
  knobs: Record<string, string> = {},
): Promise<string> {
  await showStartScreen(page);
  const card = page.getByTestId(`demo-${demoId}`);
  if (Object.keys(knobs).length > 0) {
    await card.locator('details > summary').click();
    for (const [name, value] of Object.entries(knobs)) {
      await page.getByTestId(`knob-${demoId}-${name}`).fill(value);
    }
  }
  return openSessionBy(page, page.getByTestId(`start-demo-${demoId}`));
}

/** The raw number behind a counter (`data-value`). */
export async function counter(page: Page, name: string): Promise<number> {
  const raw = await page.getByTestId(`counter-${name}`).getAttribute('data-value');
  if (raw === null) throw new Error(`counter-${name} has no data-value`);
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`counter-${name} data-value is not a number: ${raw}`);
  return n;
}

/** The server's pid as the process counter shows it ("pid 1234"), or null before spawn. */
export async function serverPid(page: Page): Promise<number | null> {
  const text = (await page.getByTestId('counter-pid').textContent()) ?? '';
  const m = /pid (\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

export async function requestIds(page: Page): Promise<string[]> {
  const ids: string[] = [];
  for (const row of await page.locator('tr[data-testid^="request-row-"]').all()) {
    const testId = await row.getAttribute('data-testid');
    if (testId) ids.push(testId.slice('request-row-'.length));
  }
  return ids;
}

/** Resolves with the id of the request row that appears after `action`. */
export async function newRequestAfter(page: Page, action: () => Promise<void>): Promise<string> {
  const before = new Set(await requestIds(page));
  await action();
  let fresh: string[] = [];
  await expect
    .poll(
      async () => {
        fresh = (await requestIds(page)).filter((id) => !before.has(id));
        return fresh.length;
      },
      { timeout: SOON, message: 'no new request row' },
    )
    .toBeGreaterThan(0);
  if (fresh.length === 1) return fresh[0];
  // Several at once (server-initiated traffic): the action selects the request it started.
  for (const id of fresh) {
    if ((await requestRow(page, id).getAttribute('aria-selected')) === 'true') return id;
  }
  return fresh[0];
}

/** Picks `tool` in the composer, fills its generated form and sends; returns the request id. */
export async function callTool(
  page: Page,
  tool: string,
  args: Record<string, string> = {},
): Promise<string> {
  await page.getByTestId('tool-select').selectOption(tool);
  for (const [name, value] of Object.entries(args)) {
    await page.locator(`#arg-${name}`).fill(value);
  }
  const send = page.getByTestId('send-tool');
  await expect.poll(() => send.isEnabled(), { timeout: SOON }).toBe(true);
  return newRequestAfter(page, () => send.click());
}

export function requestRow(page: Page, id: string): Locator {
  return page.getByTestId(`request-row-${id}`);
}

/** Waits until the request row shows `status` (data-status). */
export async function waitForStatus(
  page: Page,
  id: string,
  status: string,
  timeout = SOON,
): Promise<void> {
  await page
    .locator(`tr[data-testid="request-row-${id}"][data-status="${status}"]`)
    .waitFor({ timeout });
}

/** Takes keyboard focus out of any field, as a click on an empty part of the page would. */
export async function blurFields(page: Page): Promise<void> {
  await page.getByTestId('session-state').click();
}

/** Closes every session tab (stop ladder) and waits until the tab bar is empty. */
export async function closeAllSessions(page: Page): Promise<void> {
  for (const id of await sessionIds(page)) {
    await page.getByTestId(`close-${id}`).click();
    await page.getByTestId(`tab-${id}`).waitFor({ state: 'detached', timeout: SOON });
  }
}
