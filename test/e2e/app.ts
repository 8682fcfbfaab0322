/**
 * One browser-mode app per test file, with the process accounting the suite promises: after
 * each test every session is closed and each process the host had started is gone; after the
 * file the host is gone too. Call `setupApp()` inside a `describe`.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { descendants, stillRunning } from '../fixtures/processes.js';
import { type Harness, type OpenAppOptions, openApp } from './harness.js';
import { closeAllSessions, pollUntil, SOON } from './session.js';

export interface E2EApp {
  readonly harness: Harness;
  readonly page: Page;
}

/** Processes seen under the host, by pid, with their command line (guards against pid reuse). */
type Tracked = Map<number, string>;

function track(tracked: Tracked, root: number): void {
  for (const p of descendants(root)) tracked.set(p.pid, p.args);
}

function leftovers(tracked: Tracked): string[] {
  return stillRunning(tracked.keys())
    .filter((p) => tracked.get(p.pid) === p.args)
    .map((p) => `${p.pid} ${p.args}`);
}

export function setupApp(options: OpenAppOptions = {}): E2EApp {
  let harness: Harness | undefined;
  const tracked: Tracked = new Map();
  const app: E2EApp = {
    get harness(): Harness {
      if (!harness) throw new Error('the app is not open (beforeAll failed?)');
      return harness;
    },
    get page(): Page {
      return app.harness.page;
    },
  };

  beforeAll(async () => {
    harness = await openApp(options);
    try {
      // First load on a busy 2-core machine: allow twice the usual bound.
      await harness.page.locator('main[data-state="ready"]').waitFor({ timeout: 2 * SOON });
    } catch (e) {
      const state = await harness.page
        .locator('main')
        .getAttribute('data-state')
        .catch(() => null);
      throw new Error(
        `renderer not ready (main data-state=${state}): ${String(e)}\nhost stderr:\n${harness.hostStderr()}`,
      );
    }
  });

  afterEach(async () => {
    if (!harness?.host.pid) return;
    track(tracked, harness.host.pid);
    await closeAllSessions(harness.page);
    // session:close resolves after the stop ladder; the kernel may still be reaping.
    const left = await pollUntil(
      () => leftovers(tracked),
      (l) => l.length === 0,
    );
    expect(left, 'processes of closed sessions still running').toEqual([]);
  });

  afterAll(async () => {
    if (!harness) return;
    const hostPid = harness.host.pid;
    if (hostPid) track(tracked, hostPid);
    await harness.close();
    if (hostPid) {
      const host = stillRunning([hostPid]).map((p) => `${p.pid} ${p.args}`);
      expect(host, 'pipescope web still running after close()').toEqual([]);
    }
    const left = await pollUntil(
      () => leftovers(tracked),
      (l) => l.length === 0,
    );
    expect(left, 'processes started by the host still running').toEqual([]);
  });

  return app;
}
