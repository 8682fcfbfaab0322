import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTraceDir, defaultTracePath, ensureDir } from './recording.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-recording-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('default trace paths', () => {
  it('uses PIPESCOPE_TRACE_DIR, else ~/.pipescope/traces', () => {
    expect(defaultTraceDir({ PIPESCOPE_TRACE_DIR: '/x/traces' })).toBe('/x/traces');
    expect(defaultTraceDir({})).toBe(path.join(homedir(), '.pipescope', 'traces'));
  });

  it('names a trace after the session title and the time, safely', () => {
    const at = new Date('2025-03-04T05:06:07.089Z');
    expect(defaultTracePath('stdout-pollution', at, '/d')).toBe(
      '/d/stdout-pollution-2025-03-04T05-06-07-089Z.jsonl',
    );
    expect(defaultTracePath('../my server/x', at, '/d')).toBe(
      '/d/my_server_x-2025-03-04T05-06-07-089Z.jsonl',
    );
    expect(defaultTracePath('', at, '/d')).toMatch(/^\/d\/session-/);
  });

  it('creates missing folders level by level and fails fast where it cannot', () => {
    const deep = path.join(tmp, 'a', 'b', 'c');
    ensureDir(deep);
    expect(existsSync(deep)).toBe(true);
    const file = path.join(tmp, 'file');
    writeFileSync(file, 'x');
    expect(() => ensureDir(path.join(file, 'sub'))).toThrow();
    // recursive mkdir loops forever here on Node 20
    expect(() => ensureDir('/proc/pipescope-no/such')).toThrow();
  });
});
