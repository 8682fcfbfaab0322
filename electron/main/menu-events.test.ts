import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  defaultTraceFileName,
  openTraceEvent,
  readConfigFile,
  saveTraceEvent,
} from './menu-events.js';

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

describe('trace menu choices', () => {
  it('turns the Open Trace… choice into an open-trace event, cancel into nothing', () => {
    expect(openTraceEvent({ canceled: false, filePaths: ['/t/a.jsonl'] })).toEqual({
      type: 'menu',
      action: 'open-trace',
      path: '/t/a.jsonl',
    });
    expect(openTraceEvent({ canceled: true, filePaths: ['/t/a.jsonl'] })).toBeNull();
    expect(openTraceEvent({ canceled: false, filePaths: [] })).toBeNull();
  });

  it('turns the Save Trace… choice into a save-trace event, adding .jsonl when missing', () => {
    expect(saveTraceEvent({ canceled: false, filePath: '/t/incident' })).toEqual({
      type: 'menu',
      action: 'save-trace',
      path: '/t/incident.jsonl',
    });
    expect(saveTraceEvent({ canceled: false, filePath: '/t/x.trace' })).toMatchObject({
      path: '/t/x.trace',
    });
    expect(saveTraceEvent({ canceled: true })).toBeNull();
    expect(saveTraceEvent({ canceled: false })).toBeNull();
  });

  it('proposes a file name safe on every file system', () => {
    expect(defaultTraceFileName(new Date('2025-01-02T03:04:05.678Z'))).toBe(
      'pipescope-2025-01-02T03-04-05-678Z.jsonl',
    );
  });
});
