/**
 * Trace redaction in the browser: a server imported with an environment value, recorded with
 * the Record toggle while a tool call carries ordinary text that names a secret, a key in a
 * well-known format and the env value. The trace keeps the ordinary text, loses the key and the
 * value, and its header counts what each rule replaced, which the opened trace shows. Record's
 * option "without redaction" keeps every byte, and says so.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceHeader } from '../../shared/trace-format.js';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { callTool, openSessionBy, SOON, showStartScreen, waitForStatus } from './session.js';

// The host inherits this: recordings land here, not in ~/.pipescope/traces.
const traceDir = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-redaction-'));
process.env.PIPESCOPE_TRACE_DIR = traceDir;
afterAll(() => rmSync(traceDir, { recursive: true, force: true }));

const ROOT = path.resolve(import.meta.dirname, '../..');
const HEALTHY = path.join(ROOT, 'dist/electron/demo-servers/healthy.js');
const ENV_VALUE = 'e2e-env-CANARY-7f3a9c';
/** An OpenAI-style key: the key-format rule finds it with no name beside it. */
const KEY = `sk-${'CANARY'}${'a1B2c3D4'.repeat(3)}`;
const ORDINARY = 'hello secret=abc';

async function importHealthy(page: Page, dir: string): Promise<void> {
  const file = path.join(dir, 'claude_desktop_config.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        'e2e-redact': { command: 'node', args: [HEALTHY], env: { E2E_SETTING: ENV_VALUE } },
      },
    }),
  );
  await showStartScreen(page);
  await page.getByTestId('import-file').setInputFiles(file);
  await openSessionBy(page, page.getByTestId('start-imported-e2e-redact'));
}

/** Records one echo of `text`, stops the session; resolves with the trace's path and text. */
async function recordEcho(
  page: Page,
  text: string,
  exact: boolean,
): Promise<{ file: string; text: string }> {
  if (exact) {
    await page.getByTestId('record-options').click();
    await page.getByTestId('record-unredacted').click();
  } else await page.getByTestId('record-toggle').click();
  await page.locator('[data-testid="record"][data-state="recording"]').waitFor({ timeout: SOON });
  const id = await callTool(page, 'echo', { text });
  await waitForStatus(page, id, 'completed');
  await page.getByTestId('stop-session').click();
  await page.locator('[data-testid="record"][data-state="finished"]').waitFor({ timeout: SOON });
  const file = (await page.getByTestId('recording-path').textContent()) ?? '';
  expect(path.dirname(file)).toBe(traceDir);
  return { file, text: readFileSync(file, 'utf8') };
}

/** Opens `file` as a trace session and waits for its bar. */
async function openTrace(page: Page, file: string): Promise<void> {
  await showStartScreen(page);
  await page.getByTestId('trace-file-input').setInputFiles(file);
  await page
    .locator('[data-testid="session-view"][data-read-only="true"]')
    .waitFor({ timeout: SOON });
  await page.getByTestId('trace-redaction').waitFor({ timeout: SOON });
}

function headerOf(text: string): TraceHeader {
  return JSON.parse(text.slice(0, text.indexOf('\n'))) as TraceHeader;
}

describe.runIf(chromiumAvailable())('trace redaction', () => {
  const app = setupApp();

  it('keeps ordinary text, removes a key-format secret and an env value, counts them', async () => {
    const { page } = app;
    await importHealthy(page, traceDir);
    const { file, text } = await recordEcho(
      page,
      `${ORDINARY}; key ${KEY}; setting ${ENV_VALUE}`,
      false,
    );

    expect(text).toContain(ORDINARY);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(ENV_VALUE);
    expect(text).not.toMatch(/CANARY/);
    const header = headerOf(text);
    expect(header.redacted).toBe(true);
    expect(header.server.env).toEqual({ E2E_SETTING: '***' });
    const count = (rule: string) => header.redaction?.rules.find((r) => r.rule === rule)?.count;
    expect(header.redaction?.final).toBe(true);
    expect(count('key-format')).toBeGreaterThanOrEqual(2); // the call and its echo
    expect(count('env-value')).toBeGreaterThanOrEqual(3); // the header, the call, the echo
    expect(count('secret-assignment')).toBe(0);

    // The opened trace says what was redacted and why, and shows the ordinary text as it was.
    await openTrace(page, file);
    const note = page.getByTestId('trace-redaction');
    expect(await note.getAttribute('data-redacted')).toBe('true');
    expect(await note.textContent()).toMatch(/redacted: .*env-value.*key-format/);
    expect(await note.getAttribute('title')).toMatch(/key-format: \d+ \(a well-known key format/);
    const call = page.getByTestId('frame-row').filter({ hasText: 'tools/call' });
    await expect.poll(() => call.count(), { timeout: SOON }).toBe(1);
    expect(await call.textContent()).toContain(ORDINARY);
  });

  it('Record without redaction keeps every byte, and says so', async () => {
    const { page } = app;
    await importHealthy(page, traceDir);
    const { file, text } = await recordEcho(page, `${ORDINARY}; key ${KEY}`, true);
    expect(await page.getByTestId('recording-unredacted').textContent()).toBe('not redacted');
    expect(text).toContain(KEY);
    expect(text).toContain(ENV_VALUE);
    const header = headerOf(text);
    expect(header.redacted).toBe(false);
    expect(header.redaction).toBeUndefined();
    await openTrace(page, file);
    expect(await page.getByTestId('trace-redaction').getAttribute('data-redacted')).toBe('false');
  });
});
