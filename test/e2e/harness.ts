/**
 * E2E harness: a real browser-mode host (`pipescope web`, real engine, real demo servers) and
 * Debian's Chromium driven by playwright-core — launch.mjs, shared with the scripts. Every test
 * file gets a fresh user-data-dir; close() stops the browser, then the host (SIGTERM → every
 * session through the stop ladder). Waiting for the renderer is left to the caller (app.ts
 * reports why it is not ready).
 */
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { type BrowserMode, CHROMIUM, openBrowserMode } from './launch.mjs';

export interface OpenAppOptions {
  /** Runs on the fresh page before it navigates (e.g. to listen to its WebSocket). */
  beforeNavigate?(page: Page): void | Promise<void>;
}

export type Harness = BrowserMode;

/** Whether e2e tests run: always in CI (where a missing Chromium must fail), else if installed. */
export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM) || process.env.CI === 'true';
}

export function openApp(options: OpenAppOptions = {}): Promise<Harness> {
  return openBrowserMode({
    beforeNavigate: options.beforeNavigate,
    colorScheme: 'light', // Playwright's default, as the tests were written against
    waitForReady: false,
  });
}
