// biome-ignore-all lint/suspicious/noTemplateCurlyInString: host configs spell placeholders as ${…}; these are literal.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConfigFormat, ImportResult } from '../../../shared/host-api.js';
import { importConfigText } from './import.js';
import { parseJsonc } from './jsonc.js';
import {
  HOST_LABELS,
  planTapInstall,
  planTapUninstall,
  type TapChange,
  TapConfigError,
} from './tap-config.js';

const LAUNCHER = { node: '/opt/node/bin/node', bin: '/opt/pipescope/bin/pipescope.js' };
const fixture = (name: string): string =>
  readFileSync(new URL(`../../../test/fixtures/configs/tap/${name}`, import.meta.url), 'utf8');

const install = (text: string, fileName: string, servers?: string[]) =>
  planTapInstall(text, { fileName, launcher: LAUNCHER, servers });

function statuses(changes: TapChange[]): string[] {
  return changes.map((c) => `${c.location} ${c.name}: ${c.status}`);
}

/** The servers as the importer (and so the host) reads them, keyed by source and name. */
function servers(result: ImportResult): Map<string, { command: string; args: string[] }> {
  return new Map(result.servers.map((s) => [`${s.source} ${s.name}`, s]));
}

interface Case {
  file: string;
  format: Exclude<ConfigFormat, 'auto'>;
  wrapped: string[];
  skipped: string[];
}

const CASES: Case[] = [
  {
    file: 'claude_desktop_config.json',
    format: 'claude-desktop',
    wrapped: ['filesystem', 'github', 'sqlite'],
    skipped: [],
  },
  {
    file: 'cursor/.cursor/mcp.json',
    format: 'cursor',
    wrapped: ['playwright', 'weather'],
    skipped: ['linear'],
  },
  {
    file: 'vscode/.vscode/mcp.json',
    format: 'vscode',
    wrapped: ['perplexity', 'fetch'],
    skipped: ['github'],
  },
  {
    file: 'vscode-crlf/.vscode/mcp.json',
    format: 'vscode',
    wrapped: ['perplexity', 'fetch'],
    skipped: ['github'],
  },
  {
    file: 'claude-code/.claude.json',
    format: 'claude-code',
    wrapped: ['memory', 'app-tools', 'memory'],
    skipped: ['sentry'],
  },
  { file: 'claude-code/.mcp.json', format: 'claude-code', wrapped: ['db'], skipped: ['events'] },
];

describe.each(CASES)('$file', ({ file, format, wrapped, skipped }) => {
  const original = fixture(file);
  const plan = install(original, file);

  it('wraps every stdio server and skips the others, saying why', () => {
    expect(plan.format).toBe(format);
    expect(plan.host).toBe(HOST_LABELS[format]);
    expect(plan.changed).toBe(true);
    expect(plan.changes.filter((c) => c.status === 'wrapped').map((c) => c.name)).toEqual(wrapped);
    const skips = plan.changes.filter((c) => c.status === 'skipped');
    expect(skips.map((c) => c.name)).toEqual(skipped);
    for (const s of skips) expect(s.reason).toMatch(/remote server \((http|sse)\)/);
    expect(plan.entries).toHaveLength(wrapped.length);
  });

  it('gives each wrapped entry the tap argv, as the host parses it, and keeps the rest', () => {
    const before = servers(importConfigText(original, format, file));
    const after = servers(importConfigText(plan.text, format, file));
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [key, server] of after) {
      const was = before.get(key);
      if (!was) throw new Error(key);
      const name = key.split(' ').at(-1);
      expect(server.command).toBe(LAUNCHER.node);
      expect(server.args).toEqual([
        LAUNCHER.bin,
        'tap',
        '--name',
        name,
        '--host',
        HOST_LABELS[format],
        '--',
        was.command,
        ...was.args,
      ]);
      // env, cwd and the rest as they were (placeholders now sit in args: hosts expand them there too).
      const {
        command: _c,
        args: _a,
        notes: _n,
        ...rest
      } = was as typeof was & { notes?: string[] };
      expect(server).toMatchObject(rest);
    }
    // Strict JSON stays strict JSON (only VS Code's file is JSONC).
    if (format !== 'vscode') expect(() => JSON.parse(plan.text)).not.toThrow();
  });

  it('changes nothing but command and args values (and inserted args members)', () => {
    const eol = original.includes('\r\n') ? '\r\n' : '\n';
    const untouched = (text: string) =>
      text.split(eol).filter((l) => !/"(command|args)"|^\s+"[^"]*",?$|^\s+\]/.test(l));
    expect(untouched(plan.text)).toEqual(untouched(original));
    if (eol === '\r\n') expect(plan.text.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('is idempotent: a second install reports already tapped and changes no byte', () => {
    const again = install(plan.text, file);
    expect(again.text).toBe(plan.text);
    expect(again.changed).toBe(false);
    expect(again.entries).toEqual([]);
    expect(again.changes.filter((c) => c.status === 'already-tapped').map((c) => c.name)).toEqual(
      wrapped,
    );
  });

  it('uninstall with the manifest gives back the original bytes', () => {
    const back = planTapUninstall(plan.text, { fileName: file, manifest: plan.entries });
    expect(back.text).toBe(original);
    expect(back.left).toEqual([]);
    expect(back.changes.map((c) => [c.name, c.status, c.exact])).toEqual(
      wrapped.map((n) => [n, 'unwrapped', true]),
    );
  });

  it('uninstall without the manifest restores every command and argument', () => {
    const back = planTapUninstall(plan.text, { fileName: file, manifest: null });
    expect(back.changes.every((c) => c.status === 'unwrapped' && c.exact === false)).toBe(true);
    expect(back.changes[0].reason).toMatch(/no record of it in the manifest/);
    const before = importConfigText(original, format, file);
    expect(importConfigText(back.text, format, file)).toEqual(before);
  });
});

describe('formats and their text', () => {
  it('keeps VS Code comments, trailing commas and the inputs', () => {
    const original = fixture('vscode/.vscode/mcp.json');
    const { text } = install(original, '.vscode/mcp.json');
    for (const kept of [
      '// .vscode/mcp.json: VS Code reads it as JSONC (comments, trailing commas).',
      '/* Prompted once, stored by VS Code, never written here. */',
      '"command": "/opt/node/bin/node", // from the PATH VS Code was started with',
      '/* no args of its own */,',
      '"password": true,\n    },\n  ],',
      '"url": "https://api.githubcopilot.com/mcp/",\n    },\n  },\n}\n',
    ]) {
      expect(text).toContain(kept);
    }
    expect((parseJsonc(text, 'x') as { inputs: unknown[] }).inputs).toHaveLength(1);
  });

  it('inserts args after command in the entry’s own style', () => {
    const cases: [string, string][] = [
      [
        '{\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"command": "x"\n\t\t}\n\t}\n}',
        '\n\t\t\t"args": [',
      ],
      ['{"mcpServers":{"a":{"command":"x"}}}', '"command":"/opt/node/bin/node","args":['],
      ['{ "mcpServers": { "a": { "command" : "x" } } }', '"/opt/node/bin/node", "args" : ['],
      [
        '{\r\n  "mcpServers": {\r\n    "a": { "env": {},\r\n      "command": "x" }\r\n  }\r\n}',
        ',\r\n      "args": [',
      ],
    ];
    for (const [text, expected] of cases) {
      const plan = install(text, 'claude_desktop_config.json');
      expect(plan.text).toContain(expected);
      expect(
        planTapUninstall(plan.text, { manifest: plan.entries, format: 'claude-desktop' }).text,
      ).toBe(text);
    }
  });

  it('keeps a multi-line args array multi-line, with its indentation', () => {
    const { text } = install(fixture('claude_desktop_config.json'), 'claude_desktop_config.json');
    expect(text).toContain('"args": [\n        "/opt/pipescope/bin/pipescope.js",\n        "tap",');
    expect(text).toContain('"/Users/ada/Downloads"\n      ]\n');
  });

  it('takes the last of duplicate keys, as a JSON reader does', () => {
    const text = '{"mcpServers":{"a":{"command":"old"},"a":{"command":"new","command":"newer"}}}';
    const plan = install(text, 'claude_desktop_config.json');
    expect(plan.changes).toHaveLength(1);
    const value = JSON.parse(plan.text) as { mcpServers: { a: { args: string[] } } };
    expect(value.mcpServers.a.args.at(-1)).toBe('newer');
    expect(plan.text).toContain('{"command":"old"}');
  });
});

describe('--server', () => {
  const text = fixture('claude-code/.claude.json');

  it('wraps only the servers named (every entry of that name)', () => {
    const plan = install(text, '.claude.json', ['memory']);
    expect(statuses(plan.changes)).toEqual([
      'mcpServers memory: wrapped',
      'projects["/home/ada/app"].mcpServers memory: wrapped',
    ]);
    expect(plan.text).toContain('"command": "node",\n          "args": ["scripts/mcp.js"]');
    const more = install(plan.text, '.claude.json', ['app-tools', 'memory']);
    expect(statuses(more.changes)).toEqual([
      'mcpServers memory: already-tapped',
      'projects["/home/ada/app"].mcpServers app-tools: wrapped',
      'projects["/home/ada/app"].mcpServers memory: already-tapped',
    ]);
    const back = planTapUninstall(more.text, {
      manifest: [...plan.entries, ...more.entries],
      fileName: '.claude.json',
    });
    expect(back.text).toBe(text);
  });

  it('names a remote server as skipped, and refuses an unknown name listing those present', () => {
    expect(statuses(install(text, '.claude.json', ['sentry']).changes)).toEqual([
      'mcpServers sentry: skipped',
    ]);
    expect(() => install(text, '.claude.json', ['memory', 'nope'])).toThrow(TapConfigError);
    expect(() => install(text, '.claude.json', ['nope'])).toThrow(
      '.claude.json: no server named "nope"; the servers in it: "memory", "sentry", "app-tools"',
    );
  });
});

describe('already tapped, by us or by hand', () => {
  const hand = JSON.stringify({
    mcpServers: {
      direct: { command: '/usr/local/bin/pipescope', args: ['tap', '--', 'node', 'a.js'] },
      npx: {
        command: 'npx',
        args: ['-y', 'pipescope@0.1.0', 'tap', '--name', '--', '--', 'uvx', 'b'],
      },
      windows: {
        command: 'node',
        args: ['C:\\pipescope\\bin\\pipescope.js', 'tap', '--', 'c.exe'],
      },
      broken: { command: 'pipescope', args: ['tap', '--name', 'x'] },
    },
  });

  it('never wraps them twice', () => {
    const plan = install(hand, 'claude_desktop_config.json');
    expect(plan.changed).toBe(false);
    expect(plan.changes.every((c) => c.status === 'already-tapped')).toBe(true);
  });

  it('unwraps them from their args, and leaves one it cannot read', () => {
    const back = planTapUninstall(hand, { format: 'claude-desktop' });
    expect(statuses(back.changes)).toEqual([
      'mcpServers direct: unwrapped',
      'mcpServers npx: unwrapped',
      'mcpServers windows: unwrapped',
      'mcpServers broken: left-tapped',
    ]);
    expect(back.left).toEqual([['mcpServers', 'broken']]);
    const value = JSON.parse(back.text).mcpServers;
    expect(value.direct).toEqual({ command: 'node', args: ['a.js'] });
    expect(value.npx).toEqual({ command: 'uvx', args: ['b'] });
    expect(value.windows).toEqual({ command: 'c.exe', args: [] });
    expect(value.broken).toEqual({ command: 'pipescope', args: ['tap', '--name', 'x'] });
  });
});

describe('uninstall of a file edited since install', () => {
  const original = fixture('claude_desktop_config.json');
  const plan = install(original, 'claude_desktop_config.json');

  it('restores exactly the entries still as written, and keeps the other edits', () => {
    const edited = plan.text
      .replace('"Ctrl+Space"', '"Ctrl+Shift+Space"')
      .replace('"mcpServers": {', '"mcpServers": {\n    "new": { "command": "deno" },');
    const back = planTapUninstall(edited, {
      manifest: plan.entries,
      fileName: 'claude_desktop_config.json',
    });
    expect(back.text).toBe(
      original
        .replace('"Ctrl+Space"', '"Ctrl+Shift+Space"')
        .replace('"mcpServers": {', '"mcpServers": {\n    "new": { "command": "deno" },'),
    );
  });

  it('falls back to the args for an entry whose wrapped text changed, and says so', () => {
    const edited = plan.text.replace('"--name", "github"', '"--name",   "github"');
    const back = planTapUninstall(edited, {
      manifest: plan.entries,
      fileName: 'claude_desktop_config.json',
    });
    const github = back.changes.find((c) => c.name === 'github');
    expect(github).toMatchObject({ status: 'unwrapped', exact: false });
    expect(github?.reason).toMatch(/changed since install/);
    expect(back.text).toBe(original);
  });

  it('does not trust a manifest whose original text is not a JSON value of the right kind', () => {
    const forged = plan.entries.map((e) => ({
      ...e,
      original: { command: '1, "evil": 2', args: null },
    }));
    const back = planTapUninstall(plan.text, {
      manifest: forged,
      fileName: 'claude_desktop_config.json',
    });
    expect(back.changes.every((c) => c.exact === false)).toBe(true);
    expect(back.text).not.toContain('evil');
  });
});

describe('errors', () => {
  it('refuses unparsable text and files that are not MCP configs, naming where', () => {
    expect(() => install('{"mcpServers": {', 'claude_desktop_config.json')).toThrow(
      /claude_desktop_config.json: invalid JSON at line 1, column 17/,
    );
    expect(() => install('{"theme": "dark"}', 'settings.json')).toThrow(
      /no "mcpServers" or "servers" object found/,
    );
    expect(() => planTapUninstall('[1]', {})).toThrow(TapConfigError);
  });
});
