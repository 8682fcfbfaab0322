import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from './menu-events.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readConfigFile', () => {
  it('reads a config file as text with its path', async () => {
    const file = path.join(dir, 'claude_desktop_config.json');
    writeFileSync(file, '{"mcpServers":{}}');
    expect(await readConfigFile(file)).toEqual({
      ok: true,
      value: { fileName: file, text: '{"mcpServers":{}}' },
    });
  });

  it('refuses files over the limit, folders and missing files as Results', async () => {
    const big = path.join(dir, 'big.json');
    writeFileSync(big, 'x'.repeat(2048));
    expect(await readConfigFile(big, 1024)).toMatchObject({
      ok: false,
      error: { code: 'ETOOBIG' },
    });
    const sub = path.join(dir, 'folder');
    mkdirSync(sub);
    expect(await readConfigFile(sub)).toMatchObject({ ok: false });
    expect(await readConfigFile(path.join(dir, 'missing.json'))).toMatchObject({
      ok: false,
      error: { code: 'EREAD' },
    });
  });
});
