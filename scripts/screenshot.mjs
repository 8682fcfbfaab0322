#!/usr/bin/env node
/**
 * `npm run screenshot` — the README's dashboard picture, taken from the real app so it stays
 * current. Builds nothing itself: run `npm run build` first.
 *
 * Starts browser mode (`pipescope web`), opens Debian Chromium (PIPESCOPE_CHROMIUM overrides
 * /usr/bin/chromium) at 1440×900, starts the `oversized-result` demo, pauses the reader, calls
 * `dump`, waits for the `server-write-blocked` finding, and writes docs/screenshot.png.
 * `--scenario process` takes the process panel's picture instead (docs/screenshot-process.png):
 * the same blocked server, once the panel marks its row as the finding's evidence; with
 * `--demo subprocess-blocked`, a server whose child is blocked in write() on a full pipe.
 * Options: `--out <file>`, `--theme dark|light` (default dark), `--scenario dashboard|process`,
 * `--demo oversized-result|subprocess-blocked` (process scenario only).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  callTool,
  checkPrerequisites,
  openBrowserMode,
  ROOT,
  runScript,
  startDemo,
} from '../test/e2e/launch.mjs';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    theme: { type: 'string', default: 'dark' },
    scenario: { type: 'string', default: 'dashboard' },
    demo: { type: 'string', default: 'oversized-result' },
  },
});
if (values.theme !== 'dark' && values.theme !== 'light') {
  process.stderr.write('--theme must be dark or light\n');
  process.exit(2);
}
/** What the process scenario starts: the demo, its tool, whether the reader is paused first,
 *  and the finding whose evidence the panel marks. */
const PROCESS_DEMOS = {
  // Blocking stdout: the server sits in write(1, …), as a C or Python server would.
  'oversized-result': {
    tool: 'dump',
    pause: true,
    finding: 'server-write-blocked',
    knobs: { 'blocking-stdout': 'true' },
  },
  'subprocess-blocked': { tool: 'run', pause: false, finding: 'subprocess-blocked', knobs: {} },
};
if (values.scenario !== 'dashboard' && values.scenario !== 'process') {
  process.stderr.write('--scenario must be dashboard or process\n');
  process.exit(2);
}
const processDemo = PROCESS_DEMOS[values.demo];
if (!processDemo) {
  process.stderr.write(`--demo must be one of ${Object.keys(PROCESS_DEMOS).join(', ')}\n`);
  process.exit(2);
}
const out =
  values.out ??
  path.join(
    ROOT,
    values.scenario === 'process' ? 'docs/screenshot-process.png' : 'docs/screenshot.png',
  );
checkPrerequisites();

const WAIT = 20_000;
const app = await openBrowserMode({
  viewport: { width: 1440, height: 900 },
  colorScheme: values.theme,
});
/** The dashboard's picture: the blocked server, its finding and its stderr. */
async function dashboard(page) {
  await startDemo(page, 'oversized-result');
  await pauseReader(page);
  await callTool(page, 'dump');
  await page.locator('tr[data-testid^="request-row-"][data-status="pending"]').first().waitFor({
    timeout: WAIT,
  });
  await page.getByTestId('finding-server-write-blocked').waitFor({ timeout: WAIT });
  // The server's own account of it: "stdout backpressure observed" on stderr.
  await page
    .getByTestId('stderr-panel')
    .getByText(/backpressure/)
    .first()
    .waitFor({ timeout: WAIT });
}

/** The process panel's picture: the process a finding rests on, marked as its evidence. */
async function processPanel(page) {
  const { tool, pause, finding, knobs } = processDemo;
  await page.getByTestId('tab-start').click();
  for (const [name, value] of Object.entries(knobs)) {
    const input = page.getByTestId(`knob-${values.demo}-${name}`);
    if (!(await input.isVisible())) {
      await page.locator(`[data-testid="demo-${values.demo}"] details summary`).click();
    }
    await input.fill(value);
  }
  await startDemo(page, values.demo);
  await page.locator('[data-testid="process-state"][data-state="sampled"]').waitFor({
    timeout: WAIT,
  });
  if (pause) await pauseReader(page);
  await callTool(page, tool);
  await page.getByTestId(`finding-${finding}`).waitFor({ timeout: WAIT });
  await page
    .locator(`[data-testid="process-row"][data-evidence="true"][data-findings~="${finding}"]`)
    .waitFor({ timeout: WAIT });
  // A few seconds of the state on the sparklines and in the "blocked for" figures: wait for
  // the panel's sample clock to pass 5 s (a marker, not a sleep).
  await page.waitForFunction(
    () => {
      const text = document.querySelector('[data-testid="process-summary"]')?.textContent ?? '';
      const m = /sample at ([\d.]+) s/.exec(text);
      return m !== null && Number(m[1]) >= 5;
    },
    undefined,
    { timeout: WAIT },
  );
  // The panel is the picture: the request detail (the call selected) closed, the panel in view.
  const close = page.getByTestId('close-request-detail');
  if (await close.isVisible()) await close.click();
  await page.getByTestId('process-panel').scrollIntoViewIfNeeded();
}

async function pauseReader(page) {
  await page.getByTestId('reader-paused').click();
  await page.locator('[data-testid="demo-controls"][data-reader="paused"]').waitFor({
    timeout: WAIT,
  });
}

await runScript(app, 'screenshot', async () => {
  const { page } = app;
  if (values.scenario === 'process') await processPanel(page);
  else await dashboard(page);
  // No focus ring or hover on the picture (a blur, not a click: a click would scroll).
  await page.evaluate(() => {
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
  });
  await page.mouse.move(0, 899);
  mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out, animations: 'disabled' });
  process.stdout.write(`screenshot: ${path.relative(process.cwd(), out)}\n`);
});
