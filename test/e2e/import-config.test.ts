/**
 * Import a Claude Desktop config through the real file picker: the server it names is listed
 * with its exact argv, and Start opens a session that completes the MCP handshake.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { callTool, openSessionBy, SOON, showStartScreen, waitForStatus } from './session.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HEALTHY = path.join(ROOT, 'dist/electron/demo-servers/healthy.js');

describe.runIf(chromiumAvailable())('import config', () => {
  const app = setupApp();
  const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-e2e-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('Claude Desktop JSON → imported server → Start → handshake done', async () => {
    const { page } = app;
    const file = path.join(dir, 'claude_desktop_config.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          mcpServers: {
            'e2e-healthy': {
              command: 'node',
              args: [HEALTHY, '--page-size=5'],
              env: { E2E_SECRET: 'not-shown' },
            },
          },
        },
        null,
        2,
      ),
    );
    await showStartScreen(page);
    await page.getByTestId('import-file').setInputFiles(file);
    const entry = page.getByTestId('imported-e2e-healthy');
    await entry.waitFor({ timeout: SOON });
    const argv = (await page.getByTestId('imported-argv-e2e-healthy').textContent()) ?? '';
    expect(argv).toContain('healthy.js');
    expect(argv).toContain('--page-size=5');
    expect(await entry.textContent()).not.toContain('not-shown');

    await openSessionBy(page, page.getByTestId('start-imported-e2e-healthy'));
    await page.getByTestId('server-info').waitFor({ timeout: SOON });
    expect(await page.getByTestId('handshake-error').count()).toBe(0);
    expect(await page.getByTestId('session-argv').textContent()).toContain('healthy.js');
    expect(await page.getByTestId('session-view').textContent()).not.toContain('not-shown');

    // It is the server the file named: its own tool answers.
    const id = await callTool(page, 'echo', { text: 'imported' });
    await waitForStatus(page, id, 'completed');
  });

  it('a config that is not JSON gets a clear error and lists nothing', async () => {
    const { page } = app;
    const file = path.join(dir, 'mcp.json');
    writeFileSync(file, '{ "mcpServers": { "broken": ');
    await showStartScreen(page);
    await page.getByTestId('import-file').setInputFiles(file);
    const error = page.getByTestId('import-config').getByRole('alert');
    await error.waitFor({ timeout: SOON });
    expect(await error.textContent()).toMatch(/mcp\.json: invalid JSON at line 1, column \d+/);
    expect(await page.locator('[data-testid^="imported-"]').count()).toBe(0);
  });
});
