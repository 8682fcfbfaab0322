// Property tests of tap install / uninstall over generated host configs: any layout (indent,
// line endings, inline or one member a line, comments and trailing commas in VS Code's JSONC,
// escapes a JSON writer would not choose), any names and argv.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConfigFormat } from '../../../shared/host-api.js';
import { importConfigText } from './import.js';
import { HOST_LABELS, planTapInstall, planTapUninstall } from './tap-config.js';

type Format = Exclude<ConfigFormat, 'auto'>;
const LAUNCHER = {
  node: 'C:\\Program Files\\nodejs\\node.exe',
  bin: '/opt/pipe scope/bin/pipescope.js',
};

interface Server {
  name: string;
  remote: boolean;
  command: string;
  /** undefined: no args member; null: `"args": null`. */
  args: string[] | null | undefined;
  argsFirst: boolean;
  env: boolean;
  multiline: boolean;
  argsMultiline: boolean;
  comment: boolean;
}

interface Layout {
  eol: string;
  indent: string;
  asciiEscapes: boolean;
  trailingCommas: boolean;
}

const text = fc.string({ unit: 'binary', maxLength: 12 });
const server: fc.Arbitrary<Server> = fc.record({
  name: fc.string({ unit: 'binary', maxLength: 10 }),
  remote: fc.boolean(),
  command: text.filter((s) => s.trim() !== ''),
  args: fc.option(fc.option(fc.array(text, { maxLength: 4 }), { nil: null }), { nil: undefined }),
  argsFirst: fc.boolean(),
  env: fc.boolean(),
  multiline: fc.boolean(),
  argsMultiline: fc.boolean(),
  comment: fc.boolean(),
});
const servers = fc.uniqueArray(server, { maxLength: 5, selector: (s) => s.name });
const layout: fc.Arbitrary<Layout> = fc.record({
  eol: fc.constantFrom('\n', '\r\n'),
  indent: fc.constantFrom('  ', '    ', '\t'),
  asciiEscapes: fc.boolean(),
  trailingCommas: fc.boolean(),
});
const config = fc.record({
  format: fc.constantFrom<Format>('claude-desktop', 'cursor', 'vscode', 'claude-code'),
  layout,
  top: servers,
  project: servers,
});

/** A JSON string, optionally with every non-ASCII character and `/` escaped. */
function str(s: string, l: Layout): string {
  const json = JSON.stringify(s);
  if (!l.asciiEscapes) return json;
  return json.replace(/[^\x20-\x7e]|\//g, (c) =>
    c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function printConfig(c: {
  format: Format;
  layout: Layout;
  top: Server[];
  project: Server[];
}): string {
  const l = c.layout;
  const jsonc = c.format === 'vscode';
  const pad = (n: number) => l.indent.repeat(n);
  const comma = jsonc && l.trailingCommas ? ',' : '';
  const obj = (members: string[], depth: number): string =>
    members.length === 0
      ? '{}'
      : `{${l.eol}${members.map((m) => pad(depth + 1) + m).join(`,${l.eol}`)}${comma}${l.eol}${pad(depth)}}`;
  const entry = (s: Server, depth: number): string => {
    const members: string[] = [];
    if (s.remote) {
      if (c.format === 'vscode' || c.format === 'claude-code') members.push(`"type": "http"`);
      members.push(`"url": ${str('https://example.test/mcp', l)}`);
    } else {
      if (c.format === 'vscode' || c.format === 'claude-code') members.push(`"type": "stdio"`);
      const cmd = `"command": ${str(s.command, l)}${jsonc && s.comment ? ' /* the server */' : ''}`;
      let args: string | null = null;
      if (s.args === null) args = '"args": null';
      else if (s.args !== undefined) {
        const items = s.args.map((a) => str(a, l));
        args =
          s.argsMultiline && items.length > 0
            ? `"args": [${l.eol}${items.map((i) => pad(depth + 2) + i).join(`,${l.eol}`)}${l.eol}${pad(depth + 1)}]`
            : `"args": [${items.join(', ')}]`;
      }
      if (args !== null && s.argsFirst) members.push(args, cmd);
      else members.push(cmd, ...(args === null ? [] : [args]));
      if (s.env) members.push(`"env": { "K": ${str('v', l)} }`);
    }
    if (s.multiline) return obj(members, depth);
    return `{ ${members.join(', ')} }`;
  };
  const list = (items: Server[], depth: number): string =>
    obj(
      items.map((s) => `${str(s.name, l)}: ${entry(s, depth + 1)}`),
      depth,
    );
  const key = c.format === 'vscode' ? 'servers' : 'mcpServers';
  const root = [`${jsonc ? '/* generated */ ' : ''}"${key}": ${list(c.top, 1)}`];
  if (c.format === 'claude-code') {
    root.push(
      `"projects": ${obj([`"/home/ada/p": ${obj([`"mcpServers": ${list(c.project, 3)}`], 2)}`], 1)}`,
    );
  }
  return `${jsonc ? `// generated${l.eol}` : ''}${obj(root, 0)}${l.eol}`;
}

const opts = (format: Format) => ({ format, launcher: LAUNCHER });

describe('tap install / uninstall on generated configs', () => {
  it('round-trips byte for byte through the manifest, and install is idempotent', () => {
    fc.assert(
      fc.property(config, (c) => {
        const original = printConfig(c);
        const plan = planTapInstall(original, opts(c.format));
        const again = planTapInstall(plan.text, opts(c.format));
        expect(again.text).toBe(plan.text);
        expect(again.changed).toBe(false);
        const back = planTapUninstall(plan.text, { format: c.format, manifest: plan.entries });
        expect(back.text).toBe(original);
        expect(back.changes.every((ch) => ch.exact === true)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('wraps exactly the stdio servers, as the host reads them, and unwraps them from args alone', () => {
    fc.assert(
      fc.property(config, (c) => {
        const original = printConfig(c);
        const before = importConfigText(original, c.format);
        const plan = planTapInstall(original, opts(c.format));
        const stdio = [...c.top, ...(c.format === 'claude-code' ? c.project : [])].filter(
          (s) => !s.remote,
        );
        expect(plan.changes.filter((ch) => ch.status === 'wrapped')).toHaveLength(stdio.length);
        const after = importConfigText(plan.text, c.format);
        expect(after.skipped).toEqual(before.skipped);
        expect(after.servers.map((s) => [s.name, s.command, s.args, s.env, s.source])).toEqual(
          before.servers.map((s) => [
            s.name,
            LAUNCHER.node,
            [
              LAUNCHER.bin,
              'tap',
              '--name',
              s.name,
              '--host',
              HOST_LABELS[c.format],
              '--',
              s.command,
              ...s.args,
            ],
            s.env,
            s.source,
          ]),
        );
        const semantic = planTapUninstall(plan.text, { format: c.format, manifest: null });
        const restored = importConfigText(semantic.text, c.format);
        expect(restored.servers.map((s) => [s.name, s.command, s.args, s.env])).toEqual(
          before.servers.map((s) => [s.name, s.command, s.args, s.env]),
        );
      }),
      { numRuns: 300 },
    );
  });
});
