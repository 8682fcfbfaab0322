/** Types of launch.mjs (plain JavaScript, so the scripts run it without a build). */
import type { ChildProcess } from 'node:child_process';
import type { BrowserContext, Page } from 'playwright-core';

export const ROOT: string;
export const CHROMIUM: string;

export interface BrowserModeOptions {
  viewport?: { width: number; height: number };
  /** Default 'dark'. */
  colorScheme?: 'dark' | 'light';
  /** Runs on the fresh page before it navigates (e.g. to listen to its WebSocket). */
  beforeNavigate?(page: Page): void | Promise<void>;
  /** Wait for the renderer to be ready before resolving (default true). */
  waitForReady?: boolean;
}

export interface BrowserMode {
  url: string;
  page: Page;
  context: BrowserContext;
  host: ChildProcess;
  hostStderr(): string;
  /** Stops the browser, then the host (SIGTERM, SIGKILL after 10 s). */
  close(): Promise<void>;
}

export function checkPrerequisites(): void;
export function openBrowserMode(options?: BrowserModeOptions): Promise<BrowserMode>;
export function runScript(app: BrowserMode, name: string, work: () => Promise<void>): Promise<void>;
export function startDemo(page: Page, demoId: string): Promise<string>;
export function callTool(page: Page, tool: string, args?: Record<string, string>): Promise<void>;
