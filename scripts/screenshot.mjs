#!/usr/bin/env node
/**
 * `npm run screenshot` — the README's dashboard picture, taken from the real app so it stays
 * current. Builds nothing itself: run `npm run build` first.
 *
 * Starts browser mode (`pipescope web`), opens Debian Chromium (PIPESCOPE_CHROMIUM overrides
 * /usr/bin/chromium) at 1440×900, starts the `oversized-result` demo, pauses the reader, calls
 * `dump`, waits for the `server-write-blocked` finding, and writes docs/screenshot.png.
 * Options: `--out <file>`, `--theme dark|light` (default dark).
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
    out: { type: 'string', default: path.join(ROOT, 'docs/screenshot.png') },
    theme: { type: 'string', default: 'dark' },
  },
});
if (values.theme !== 'dark' && values.theme !== 'light') {
  process.stderr.write('--theme must be dark or light\n');
  process.exit(2);
}
checkPrerequisites();

const WAIT = 20_000;
const app = await openBrowserMode({
  viewport: { width: 1440, height: 900 },
  colorScheme: values.theme,
});
await runScript(app, 'screenshot', async () => {
  const { page } = app;
  await startDemo(page, 'oversized-result');
  await page.getByTestId('reader-paused').click();
  await page.locator('[data-testid="demo-controls"][data-reader="paused"]').waitFor({
    timeout: WAIT,
  });
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
  // No focus ring or hover on the picture.
  await page.getByTestId('session-state').click();
  await page.mouse.move(0, 899);
  mkdirSync(path.dirname(values.out), { recursive: true });
  await page.screenshot({ path: values.out, animations: 'disabled' });
  process.stdout.write(`screenshot: ${path.relative(process.cwd(), values.out)}\n`);
});
