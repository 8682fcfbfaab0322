/**
 * E2E harness: a real browser-mode host (`pipescope web`, real engine, real demo servers) and
 * Debian's Chromium driven by playwright-core. Every test gets a fresh user-data-dir; close()
 * stops the browser, then the host (SIGTERM → every session through the stop ladder).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.PIPESCOPE_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '../..');
const URL_LINE = /^Pipescope browser mode: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/m;

export interface OpenAppOptions {
  /** Runs on the fresh page before it navigates (e.g. to listen to its WebSocket). */
  beforeNavigate?(page: Page): void | Promise<void>;
}

export interface Harness {
  url: string;
  page: Page;
  context: BrowserContext;
  host: ChildProcess;
  hostStderr(): string;
  close(): Promise<void>;
}

/** Whether e2e tests run: always in CI (where a missing Chromium must fail), else if installed. */
export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM) || process.env.CI === 'true';
}

/** Starts `pipescope web --port 0 --no-open` and resolves with the URL it prints. */
export async function startHost(): Promise<{
  url: string;
  host: ChildProcess;
  stderr: () => string;
}> {
  const host = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/pipescope.js'), 'web', '--port', '0', '--no-open'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  host.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser mode did not start: ${err}`)), 15_000);
    host.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = URL_LINE.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    host.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited (${code}): ${err}`));
    });
  });
  return { url, host, stderr: () => err };
}

export async function openApp(options: OpenAppOptions = {}): Promise<Harness> {
  const { url, host, stderr } = await startHost();
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-'));
  let context: BrowserContext | undefined;
  const close = async (): Promise<void> => {
    await context?.close().catch(() => {});
    rmSync(userDataDir, { recursive: true, force: true });
    if (host.exitCode === null && host.signalCode === null) {
      const exited = new Promise<void>((r) => host.once('exit', () => r()));
      host.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
    }
  };
  // A failed launch or navigation must not leave the host (and its sessions) running.
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1440, height: 900 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await options.beforeNavigate?.(page);
    await page.goto(url);
    return { url, page, context, host, hostStderr: stderr, close };
  } catch (e) {
    await close();
    throw e;
  }
}
