// biome-ignore-all lint/suspicious/noTemplateCurlyInString: host configs spell placeholders as ${…}; these are literal.
import { describe, expect, it, vi } from 'vitest';
import type { ImportResult } from '../../../shared/host-api.js';
import { importConfigText, importNotes } from './import.js';

// shared/ is also type-checked for the renderer (no Node types), so node:fs is loaded untyped.
const nodeFs = 'node:fs';
const { readFileSync } = (await import(nodeFs)) as {
  readFileSync(path: URL, encoding: 'utf8'): string;
};
const fixture = (name: string): string =>
  readFileSync(new URL(`../../../test/fixtures/configs/${name}`, import.meta.url), 'utf8');
const CANARY = 'ghp_CANARYsecretValue0123456789abcdefABCD';

function byName(result: ImportResult, name: string) {
  const server = result.servers.find((s) => s.name === name);
  if (!server) throw new Error(`no server ${name}`);
  return server;
}

function reasonOf(result: ImportResult, name: string): string {
  const skipped = result.skipped.find((s) => s.name === name);
  if (!skipped) throw new Error(`${name} was not skipped`);
  return skipped.reason;
}

describe('Claude Desktop', () => {
  const text = fixture('claude_desktop_config.json');

  it('imports every stdio server with command, args and env', () => {
    const result = importConfigText(
      text,
      'auto',
      '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(result.format).toBe('claude-desktop');
    expect(result.skipped).toEqual([]);
    expect(result.servers.map((s) => s.name)).toEqual(['filesystem', 'github', 'weather']);
    expect(byName(result, 'filesystem')).toMatchObject({
      command: 'npx',
      args: [
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/Users/ada/Desktop',
        '/Users/ada/Downloads',
      ],
      source: 'Claude Desktop: claude_desktop_config.json',
    });
    expect(byName(result, 'weather').args[1]).toBe('C:\\Users\\ada\\weather');
    expect(byName(result, 'filesystem').cwd).toBeUndefined();
  });

  it('keeps a literal secret exactly as written (it is needed to start the server)', () => {
    const github = byName(importConfigText(text, 'claude-desktop'), 'github');
    expect({ ...github.env }).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: CANARY });
    expect(importNotes(github)).toEqual([]);
  });

  it('names the default file when no file name is given', () => {
    expect(importConfigText(text, 'claude-desktop').servers[0].source).toBe(
      'Claude Desktop: claude_desktop_config.json',
    );
  });
});

describe('Cursor', () => {
  const text = fixture('cursor-mcp.json');

  it('imports command entries and skips url entries as remote', () => {
    const result = importConfigText(text, 'auto', '/home/ada/.cursor/mcp.json');
    expect(result.format).toBe('cursor');
    expect(result.servers.map((s) => s.name)).toEqual(['playwright', 'postgres']);
    expect(result.skipped).toEqual([
      { name: 'linear', reason: 'remote server (sse): Pipescope inspects stdio servers' },
      { name: 'userjot', reason: 'remote server (http): Pipescope inspects stdio servers' },
    ]);
    expect(byName(result, 'playwright').source).toBe('Cursor: .cursor/mcp.json');
  });

  it('keeps ${env:…} as text and notes it instead of expanding from our environment', () => {
    vi.stubEnv('DATABASE_URL', 'postgres://canary:canary-password@db/prod');
    try {
      const postgres = byName(importConfigText(text, 'cursor'), 'postgres');
      expect(postgres.args[2]).toBe('${env:DATABASE_URL}');
      expect(JSON.stringify(postgres)).not.toContain('canary-password');
      expect(importNotes(postgres)).toEqual([
        "args[2] keeps ${env:DATABASE_URL} as text: not expanded from Pipescope's environment; set the value before starting",
      ]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('detects a bare mcp.json with mcpServers as Cursor', () => {
    expect(importConfigText(text, 'auto', 'mcp.json').format).toBe('cursor');
  });
});

describe('VS Code', () => {
  const text = fixture('vscode-mcp.json');
  const result = importConfigText(text, 'auto', 'C:\\work\\app\\.vscode\\mcp.json');

  it('reads the JSONC file (comments, trailing commas) and the servers key', () => {
    expect(result.format).toBe('vscode');
    expect(result.servers.map((s) => s.name)).toEqual(['perplexity', 'fetch']);
    expect(byName(result, 'fetch').source).toBe('VS Code: .vscode/mcp.json');
  });

  it('does not treat // or /* inside strings as comments', () => {
    expect(byName(result, 'fetch').args).toEqual([
      'mcp-server-fetch',
      '--user-agent',
      'a // not a comment /* nor this */',
    ]);
  });

  it('skips http and sse servers as remote', () => {
    expect(reasonOf(result, 'github')).toBe(
      'remote server (http): Pipescope inspects stdio servers',
    );
    expect(reasonOf(result, 'legacy-sse')).toBe(
      'remote server (sse): Pipescope inspects stdio servers',
    );
  });

  it('keeps ${input:…} as text, names the prompt, and notes the envFile it cannot load', () => {
    const perplexity = byName(result, 'perplexity');
    expect({ ...perplexity.env }).toEqual({
      PERPLEXITY_API_KEY: '${input:perplexity-key}',
      PORT: '8080',
    });
    expect(importNotes(perplexity)).toEqual([
      'env.PERPLEXITY_API_KEY keeps ${input:perplexity-key} as text: fill in the value before starting (VS Code asks for "Perplexity API Key")',
      'envFile "${workspaceFolder}/.env" is not loaded: add the variables it holds to env before starting',
    ]);
  });

  it('keeps cwd and notes ${workspaceFolder}', () => {
    const fetch = byName(result, 'fetch');
    expect(fetch.cwd).toBe('${workspaceFolder}/tools');
    expect(importNotes(fetch)).toEqual([
      'cwd keeps ${workspaceFolder} as text: not expanded; replace it before starting',
    ]);
  });

  it('detects a top-level servers key without a file name; reads the user mcp.json', () => {
    expect(importConfigText('{"servers":{"a":{"command":"x"}}}', 'auto').format).toBe('vscode');
    const user = importConfigText(text, 'auto', '/home/ada/.config/Code/User/mcp.json');
    expect(user.format).toBe('vscode');
    expect(user.servers[0].source).toBe('VS Code: User/mcp.json');
  });
});

describe('Claude Code', () => {
  it('reads .mcp.json: stdio imported, http and sse skipped, ${VAR:-default} kept', () => {
    const result = importConfigText(fixture('claude-code-mcp.json'), 'auto', '/repo/.mcp.json');
    expect(result.format).toBe('claude-code');
    expect(result.servers.map((s) => s.name)).toEqual(['db', 'plain']);
    expect(result.skipped.map((s) => s.name)).toEqual(['sentry', 'events']);
    expect(reasonOf(result, 'sentry')).toBe(
      'remote server (http): Pipescope inspects stdio servers',
    );
    const db = byName(result, 'db');
    expect(db).toMatchObject({
      command: '${HOME}/bin/db-mcp',
      args: ['--dsn', '${DATABASE_URL:-postgres://localhost/dev}'],
      source: 'Claude Code: .mcp.json',
    });
    expect({ ...db.env }).toEqual({ API_KEY: '${API_KEY}' });
    expect(importNotes(db)).toHaveLength(3);
  });

  it('reads ~/.claude.json: top-level servers and each project under projects[path]', () => {
    const result = importConfigText(fixture('claude-user.json'), 'auto', '/home/ada/.claude.json');
    expect(result.format).toBe('claude-code');
    expect(result.servers.map((s) => [s.name, s.source])).toEqual([
      ['memory', 'Claude Code: .claude.json'],
      ['app-tools', 'Claude Code: .claude.json (project /home/ada/app)'],
    ]);
    expect(result.skipped).toEqual([]);
  });

  it('detects ~/.claude.json by its projects key; a user config without servers is empty, not an error', () => {
    const text = JSON.stringify({ numStartups: 1, projects: { '/a': { allowedTools: [] } } });
    expect(importConfigText(text, 'auto')).toEqual({
      format: 'claude-code',
      servers: [],
      skipped: [],
    });
  });
});

describe('entries that cannot be started', () => {
  const result = importConfigText(fixture('edge-cases.json'), 'auto', 'edge-cases.json');

  it('skips each bad entry with its reason', () => {
    expect(Object.fromEntries(result.skipped.map((s) => [s.name, s.reason]))).toEqual({
      'no-command': 'no command: Pipescope starts stdio servers from a command',
      'number-command': 'command must be a string (got number)',
      'empty-command': 'command is empty',
      'args-not-array': 'args must be an array of strings (got string)',
      'non-string-arg': 'args[2] must be a string (got number)',
      'non-string-env': 'env.DEBUG must be a string (got boolean)',
      'env-array': 'env must be an object (got array)',
      'not-an-object': 'entry must be an object (got string)',
      websocket: 'remote server (ws): Pipescope inspects stdio servers',
      sdk: 'unsupported server type "sdk": Pipescope inspects stdio servers',
    });
  });

  it('never repeats a secret value in a reason', () => {
    expect(JSON.stringify(result.skipped)).not.toContain('CANARY');
  });

  it('keeps cwd', () => {
    expect(byName(result, 'with-cwd').cwd).toBe('/srv/app');
  });

  it('applies the session-start limits of host-api.ts', () => {
    const long = importConfigText(
      JSON.stringify({ mcpServers: { big: { command: 'x'.repeat(5000) } } }),
      'claude-desktop',
    );
    expect(long.servers).toEqual([]);
    expect(long.skipped[0].reason).toMatch(/^command: /);
  });
});

describe('prototype pollution', () => {
  const result = importConfigText(fixture('edge-cases.json'), 'auto', 'edge-cases.json');

  it('imports __proto__, constructor and hasOwnProperty as ordinary server names', () => {
    expect(result.servers.map((s) => s.name)).toEqual([
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'with-cwd',
    ]);
    expect(byName(result, '__proto__').args).toEqual(['proto.js']);
    expect(byName(result, 'constructor').args).toEqual(['ctor.js']);
  });

  it('keeps an env variable called __proto__ as an own property and pollutes nothing', () => {
    const env = byName(result, '__proto__').env;
    expect(Object.hasOwn(env, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(env, '__proto__')?.value).toBe('p');
    expect(({} as Record<string, unknown>).command).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('command');
  });

  it('ignores keys inherited from Object.prototype when detecting the shape', () => {
    expect(() => importConfigText('{"toString":{}}', 'auto')).toThrow(
      /no "mcpServers" or "servers"/,
    );
  });
});

describe('errors', () => {
  it('reports bad JSON in one line with line and column, without quoting the file', () => {
    const run = () =>
      importConfigText(fixture('bad.json'), 'auto', '/x/claude_desktop_config.json');
    expect(run).toThrow(
      "claude_desktop_config.json: invalid JSON at line 6, column 7: expected ',' or '}', unexpected character '\"'",
    );
    try {
      run();
    } catch (e) {
      expect(String(e)).not.toContain('CANARY');
      expect(String(e)).not.toContain('\n');
    }
  });

  it.each([
    ['', 'line 1, column 1: unexpected end of file'],
    [
      '{"mcpServers": {',
      'line 1, column 17: expected a property name in double quotes, unexpected end of file',
    ],
    ['{"a": "b\nc"}', 'line 1, column 7: unterminated string'],
    ['{"a": tru}', "line 1, column 7: unexpected character 't'"],
    [
      "{'a': 1}",
      "line 1, column 2: expected a property name in double quotes, unexpected character '''",
    ],
    ['{"a": 1} x', "line 1, column 10: unexpected character 'x' after the end of the JSON value"],
    ['/* open', 'line 1, column 1: unterminated /* comment'],
    ['{"a": "\\q"}', 'line 1, column 8: invalid escape in string'],
    ['[1,,2]', "line 1, column 4: unexpected character ','"],
  ])('bad JSON %j → %s', (text, message) => {
    expect(() => importConfigText(text, 'auto', 'mcp.json')).toThrow(
      `mcp.json: invalid JSON at ${message}`,
    );
  });

  it('rejects deep nesting instead of overflowing the stack', () => {
    expect(() => importConfigText('['.repeat(100_000), 'auto')).toThrow(
      /nested deeper than 256 levels/,
    );
  });

  it('rejects a shape with neither mcpServers nor servers', () => {
    expect(() => importConfigText('{"name": "x"}', 'auto', 'settings.json')).toThrow(
      'settings.json: no "mcpServers" or "servers" object found; is this an MCP config file?',
    );
    expect(() => importConfigText('{"name": "x"}', 'cursor')).toThrow(
      /no "mcpServers" or "servers"/,
    );
    expect(() => importConfigText('[1]', 'auto')).toThrow(
      'config: expected a JSON object at the top level (got array)',
    );
    expect(() => importConfigText('{"mcpServers": []}', 'auto')).toThrow(
      'config: "mcpServers" must be an object mapping server names to settings (got array)',
    );
  });
});

describe('JSONC and encodings', () => {
  it('accepts a BOM, comments everywhere and trailing commas in any host file', () => {
    const text =
      '\uFEFF/*a*/{//b\n"mcpServers"/*c*/:{"s":{"command":"n","args":["\\u00e9\\"",],},},}//end';
    const result = importConfigText(text, 'auto', 'claude_desktop_config.json');
    expect(result.servers[0]).toMatchObject({ name: 's', command: 'n', args: ['é"'] });
  });

  it('last duplicate key wins, like JSON.parse', () => {
    const result = importConfigText(
      '{"mcpServers":{"a":{"command":"one"},"a":{"command":"two"}}}',
      'auto',
    );
    expect(result.servers.map((s) => s.command)).toEqual(['two']);
  });
});
