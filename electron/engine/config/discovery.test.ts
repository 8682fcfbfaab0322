// biome-ignore-all lint/suspicious/noTemplateCurlyInString: host configs spell placeholders as ${…}; these are literal.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DiscoveredConfig } from '../../../shared/host-api.js';
import { configCandidates, discoverConfigs, MAX_CONFIG_BYTES } from './discovery.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'configs');

let root: string;
let home: string;
let cwd: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pipescope-discovery-'));
  home = join(root, 'home');
  cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function place(fixture: string, ...path: string[]): string {
  const target = join(...path);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(FIXTURES, fixture), target);
  return target;
}

function write(text: string | Buffer, ...path: string[]): string {
  const target = join(...path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  return target;
}

/** The project files every platform shares. */
function placeProjectFiles(): void {
  place('claude-code-mcp.json', cwd, '.mcp.json');
  place('cursor-mcp.json', cwd, '.cursor', 'mcp.json');
  place('vscode-mcp.json', cwd, '.vscode', 'mcp.json');
}

function summary(found: DiscoveredConfig[]) {
  return found.map((d) => ({
    path: d.path,
    format: d.format,
    servers: d.result?.servers.map((s) => s.name) ?? null,
    error: d.error,
  }));
}

const PROJECT_SUMMARY = () => [
  { path: join(cwd, '.mcp.json'), format: 'claude-code', servers: ['db', 'plain'], error: null },
  {
    path: join(cwd, '.cursor', 'mcp.json'),
    format: 'cursor',
    servers: ['playwright', 'postgres'],
    error: null,
  },
  {
    path: join(cwd, '.vscode', 'mcp.json'),
    format: 'vscode',
    servers: ['perplexity', 'fetch'],
    error: null,
  },
];

describe('discoverConfigs: default locations per platform', () => {
  it('linux: ~/.config/Claude, ~/.claude.json, ~/.cursor, ~/.config/Code/User, then the project', async () => {
    place('claude_desktop_config.json', home, '.config', 'Claude', 'claude_desktop_config.json');
    place('claude-user.json', home, '.claude.json');
    place('cursor-mcp.json', home, '.cursor', 'mcp.json');
    place('vscode-mcp.json', home, '.config', 'Code', 'User', 'mcp.json');
    placeProjectFiles();
    const found = await discoverConfigs({ home, cwd, platform: 'linux', env: {} });
    expect(summary(found)).toEqual([
      {
        path: join(home, '.config', 'Claude', 'claude_desktop_config.json'),
        format: 'claude-desktop',
        servers: ['filesystem', 'github', 'weather'],
        error: null,
      },
      {
        path: join(home, '.claude.json'),
        format: 'claude-code',
        servers: ['memory', 'app-tools'],
        error: null,
      },
      {
        path: join(home, '.cursor', 'mcp.json'),
        format: 'cursor',
        servers: ['playwright', 'postgres'],
        error: null,
      },
      {
        path: join(home, '.config', 'Code', 'User', 'mcp.json'),
        format: 'vscode',
        servers: ['perplexity', 'fetch'],
        error: null,
      },
      ...PROJECT_SUMMARY(),
    ]);
    expect(found[0].result?.servers[0].source).toBe('Claude Desktop: claude_desktop_config.json');
    expect(found[3].result?.servers[0].source).toBe('VS Code: User/mcp.json');
    expect(found[6].result?.servers[0].source).toBe('VS Code: .vscode/mcp.json');
  });

  it('linux: honours an absolute XDG_CONFIG_HOME, ignores a relative one', async () => {
    const xdg = join(root, 'xdg');
    place('claude_desktop_config.json', xdg, 'Claude', 'claude_desktop_config.json');
    const found = await discoverConfigs({
      home,
      cwd,
      platform: 'linux',
      env: { XDG_CONFIG_HOME: xdg },
    });
    expect(found.map((d) => d.path)).toEqual([join(xdg, 'Claude', 'claude_desktop_config.json')]);
    const relative = configCandidates({
      home,
      cwd,
      platform: 'linux',
      env: { XDG_CONFIG_HOME: 'xdg' },
    });
    expect(relative[0].path).toBe(join(home, '.config', 'Claude', 'claude_desktop_config.json'));
  });

  it('darwin: ~/Library/Application Support/Claude and …/Code/User', async () => {
    const support = join(home, 'Library', 'Application Support');
    place('claude_desktop_config.json', support, 'Claude', 'claude_desktop_config.json');
    place('vscode-mcp.json', support, 'Code - Insiders', 'User', 'mcp.json');
    // The Linux location is not looked at on macOS.
    place('cursor-mcp.json', home, '.config', 'Claude', 'claude_desktop_config.json');
    placeProjectFiles();
    const found = await discoverConfigs({ home, cwd, platform: 'darwin', env: {} });
    expect(summary(found)).toEqual([
      {
        path: join(support, 'Claude', 'claude_desktop_config.json'),
        format: 'claude-desktop',
        servers: ['filesystem', 'github', 'weather'],
        error: null,
      },
      {
        path: join(support, 'Code - Insiders', 'User', 'mcp.json'),
        format: 'vscode',
        servers: ['perplexity', 'fetch'],
        error: null,
      },
      ...PROJECT_SUMMARY(),
    ]);
  });

  it('win32: %APPDATA%\\Claude and %APPDATA%\\Code\\User, falling back to ~/AppData/Roaming', async () => {
    const appData = join(root, 'Roaming');
    place('claude_desktop_config.json', appData, 'Claude', 'claude_desktop_config.json');
    place('vscode-mcp.json', appData, 'Code', 'User', 'mcp.json');
    place('cursor-mcp.json', home, '.cursor', 'mcp.json');
    placeProjectFiles();
    const found = await discoverConfigs({
      home,
      cwd,
      platform: 'win32',
      env: { APPDATA: appData },
    });
    expect(summary(found).map((d) => [d.format, d.path])).toEqual([
      ['claude-desktop', join(appData, 'Claude', 'claude_desktop_config.json')],
      ['cursor', join(home, '.cursor', 'mcp.json')],
      ['vscode', join(appData, 'Code', 'User', 'mcp.json')],
      ...PROJECT_SUMMARY().map((d) => [d.format, d.path]),
    ]);

    const fallback = join(home, 'AppData', 'Roaming');
    place('claude_desktop_config.json', fallback, 'Claude', 'claude_desktop_config.json');
    const noAppData = await discoverConfigs({ home, cwd, platform: 'win32', env: {} });
    expect(noAppData[0].path).toBe(join(fallback, 'Claude', 'claude_desktop_config.json'));
  });

  it('lists a file once when cwd is home', async () => {
    place('cursor-mcp.json', home, '.cursor', 'mcp.json');
    const found = await discoverConfigs({ home, cwd: home, platform: 'linux', env: {} });
    expect(found.map((d) => d.path)).toEqual([join(home, '.cursor', 'mcp.json')]);
  });
});

describe('discoverConfigs: files that are absent, bad, big or unreadable', () => {
  it('returns nothing when no file exists, and does not throw for a missing cwd or home', async () => {
    expect(await discoverConfigs({ home, cwd, platform: 'linux', env: {} })).toEqual([]);
    const gone = join(root, 'gone');
    expect(await discoverConfigs({ home: gone, cwd: gone, platform: 'win32', env: {} })).toEqual(
      [],
    );
  });

  it('turns bad JSON into an error entry with line and column', async () => {
    place('bad.json', cwd, '.mcp.json');
    const [entry] = await discoverConfigs({ home, cwd, platform: 'linux', env: {} });
    expect(entry).toEqual({
      path: join(cwd, '.mcp.json'),
      format: 'claude-code',
      result: null,
      error:
        ".mcp.json: invalid JSON at line 6, column 7: expected ',' or '}', unexpected character '\"'",
    });
  });

  it('turns a file without servers into an error entry', async () => {
    write('{"editor.fontSize": 12}', cwd, '.vscode', 'mcp.json');
    const [entry] = await discoverConfigs({ home, cwd, platform: 'linux', env: {} });
    expect(entry.error).toMatch(/no "mcpServers" or "servers" object found/);
  });

  it('does not read a file over the size limit', async () => {
    write(Buffer.alloc(MAX_CONFIG_BYTES + 1, 0x20), home, '.cursor', 'mcp.json');
    write('{"mcpServers":{}}', cwd, '.cursor', 'mcp.json');
    const found = await discoverConfigs({ home, cwd, platform: 'linux', env: {} });
    expect(found).toEqual([
      {
        path: join(home, '.cursor', 'mcp.json'),
        format: 'cursor',
        result: null,
        error: `file is larger than 4 MiB (${MAX_CONFIG_BYTES + 1} bytes); not read`,
      },
      {
        path: join(cwd, '.cursor', 'mcp.json'),
        format: 'cursor',
        result: { format: 'cursor', servers: [], skipped: [] },
        error: null,
      },
    ]);
  });

  it('reads a file of exactly the size limit', async () => {
    const text = '{"mcpServers":{"a":{"command":"node"}}}';
    write(text.padEnd(MAX_CONFIG_BYTES, ' '), cwd, '.mcp.json');
    const [entry] = await discoverConfigs({ home, cwd, platform: 'linux', env: {} });
    expect(entry.result?.servers.map((s) => s.name)).toEqual(['a']);
  });

  it('skips an unreadable file (chmod 000)', async (ctx) => {
    const path = place('cursor-mcp.json', cwd, '.cursor', 'mcp.json');
    chmodSync(path, 0o000);
    let readable = true;
    try {
      readFileSync(path);
    } catch {
      readable = false;
    }
    // Root (and Windows) can still read it: then there is nothing to assert.
    if (readable) ctx.skip();
    expect(await discoverConfigs({ home, cwd, platform: 'linux', env: {} })).toEqual([]);
  });

  it('skips a directory where a file is expected', async () => {
    mkdirSync(join(cwd, '.mcp.json'));
    expect(await discoverConfigs({ home, cwd, platform: 'linux', env: {} })).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('skips a FIFO without blocking on it', async () => {
    execFileSync('mkfifo', [join(cwd, '.mcp.json')]);
    expect(await discoverConfigs({ home, cwd, platform: 'linux', env: {} })).toEqual([]);
  });

  it('decodes UTF-16 with a BOM (PowerShell `>` output) and UTF-8 with a BOM', async () => {
    const text = '{"mcpServers":{"é":{"command":"node"}}}';
    write(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
      cwd,
      '.mcp.json',
    );
    write(`\uFEFF${text}`, cwd, '.cursor', 'mcp.json');
    const found = await discoverConfigs({ home, cwd, platform: 'linux', env: {} });
    expect(found.map((d) => d.result?.servers[0].name)).toEqual(['é', 'é']);
  });
});

describe('discoverConfigs: secrets', () => {
  it('never expands placeholders from the environment it is given', async () => {
    place('cursor-mcp.json', cwd, '.cursor', 'mcp.json');
    place('claude-code-mcp.json', cwd, '.mcp.json');
    const env = { DATABASE_URL: 'canary-db-url', API_KEY: 'canary-api-key', HOME: '/canary-home' };
    const found = await discoverConfigs({ home, cwd, platform: 'linux', env });
    expect(found).toHaveLength(2);
    expect(JSON.stringify(found)).not.toContain('canary');
    const [claudeCode] = found;
    expect(claudeCode.result?.servers[0].env).toEqual({ API_KEY: '${API_KEY}' });
  });
});
