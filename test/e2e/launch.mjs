/**
 * Browser mode + Debian Chromium for the scripts (`npm run screenshot`, `npm run bench:ui`) and
 * the e2e tests (harness.ts wraps it, with types from launch.d.mts). Starts
 * `pipescope web --port 0 --no-open` from the built dist/, reads the one URL line it prints,
 * launches Chromium with playwright-core, and stops both (SIGTERM → the host stops every
 * session through the stop ladder).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.PIPESCOPE_CHROMIUM ?? '/usr/bin/chromium';
const URL_LINE = /^Pipescope browser mode: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/m;

/** Exits with a one-line hint when the build or the browser is missing. */
export function checkPrerequisites() {
  const missing = [];
  if (!existsSync(path.join(ROOT, 'dist/renderer/index.html'))) {
    missing.push('dist/renderer is missing: run `npm run build` first');
  }
  if (!existsSync(path.join(ROOT, 'dist/electron/cli/main.js'))) {
    missing.push('dist/electron is missing: run `npm run build` first');
  }
  if (!existsSync(CHROMIUM)) {
    missing.push(`no Chromium at ${CHROMIUM} (set PIPESCOPE_CHROMIUM)`);
  }
  if (missing.length > 0) {
    for (const m of new Set(missing)) process.stderr.write(`${m}\n`);
    process.exit(2);
  }
}

/**
 * Starts browser mode and a headless Chromium on its URL; unless `waitForReady` is false,
 * resolves once the renderer is ready. Options: launch.d.mts.
 * @param {import('./launch.d.mts').BrowserModeOptions} [options]
 */
export async function openBrowserMode(options = {}) {
  // Its tap socket and traces in folders of its own (unless the test chose them): nothing in the
  // user's ~/.pipescope, and no meeting with a Pipescope the user has running.
  const scratch = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-host-'));
  const env = {
    ...process.env,
    PIPESCOPE_TAP_DIR: process.env.PIPESCOPE_TAP_DIR ?? path.join(scratch, 'run'),
    PIPESCOPE_TRACE_DIR: process.env.PIPESCOPE_TRACE_DIR ?? path.join(scratch, 'traces'),
  };
  const host = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/pipescope.js'), 'web', '--port', '0', '--no-open'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let err = '';
  host.stderr.on('data', (d) => {
    err += d.toString();
  });
  /** @type {import('playwright-core').BrowserContext | undefined} */
  let context;
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'pipescope-browser-'));
  const close = async () => {
    await context?.close().catch(() => {});
    rmSync(userDataDir, { recursive: true, force: true });
    if (host.exitCode === null && host.signalCode === null) {
      const exited = new Promise((r) => host.once('exit', r));
      host.kill('SIGTERM');
      const timer = new Promise((r) => setTimeout(r, 10_000).unref());
      await Promise.race([exited, timer]);
      if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
    }
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`browser mode did not start: ${err}`)),
        15_000,
      );
      host.stdout.on('data', (d) => {
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
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: options.viewport ?? { width: 1440, height: 900 },
      colorScheme: options.colorScheme ?? 'dark',
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
    if (options.waitForReady !== false) {
      await page.locator('main[data-state="ready"]').waitFor({ timeout: 20_000 });
    }
    return { url, page, context, host, hostStderr: () => err, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Runs a script's work on an open browser mode, then closes it. A failure prints
 * `<name> failed: <why>` and the host's stderr and sets exit status 1 (no stack trace).
 * @param {import('./launch.d.mts').BrowserMode} app
 * @param {string} name
 * @param {() => Promise<void>} work
 */
export async function runScript(app, name, work) {
  try {
    await work();
  } catch (e) {
    process.stderr.write(`${name} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    const hostErr = app.hostStderr().trim();
    if (hostErr) process.stderr.write(`browser mode stderr:\n${hostErr}\n`);
    process.exitCode = 1;
  } finally {
    await app.close();
  }
}

/**
 * Starts a catalog demo from the start screen and resolves with its session id once the
 * handshake is done.
 * @param {import('playwright-core').Page} page
 * @param {string} demoId
 */
export async function startDemo(page, demoId) {
  await page.getByTestId('tab-start').click();
  await page.getByTestId(`start-demo-${demoId}`).click();
  const view = page.locator('[data-testid="session-view"][data-handshake="done"]');
  await view.waitFor({ timeout: 20_000 });
  const id = await view.getAttribute('data-session-id');
  if (!id) throw new Error('session view without data-session-id');
  return id;
}

/**
 * Picks a tool in the composer, fills its form fields and sends it. Enum and boolean fields are
 * selects whose labels are the values (enums JSON-quoted: `"logging"`).
 * @param {import('playwright-core').Page} page
 * @param {string} tool
 * @param {Record<string, string>} [args]
 */
export async function callTool(page, tool, args = {}) {
  await page.getByTestId('tool-select').selectOption(tool);
  for (const [name, value] of Object.entries(args)) {
    const field = page.locator(`#arg-${name}`);
    if ((await field.evaluate((el) => el.tagName)) === 'SELECT') {
      const labels = await field.locator('option').allTextContents();
      const label = labels.find((l) => l === value || l === JSON.stringify(value));
      if (label === undefined) throw new Error(`#arg-${name} has no option ${value}`);
      await field.selectOption({ label });
    } else {
      await field.fill(value);
    }
  }
  await page.getByTestId('send-tool').click();
}
