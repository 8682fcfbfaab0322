/**
 * Importers for the MCP server lists of other hosts: Claude Desktop (`claude_desktop_config.json`,
 * `mcpServers`), Cursor (`mcp.json`, `mcpServers`, may hold remote `url` entries), VS Code
 * (`.vscode/mcp.json` or the user `mcp.json`, top-level `servers` + `inputs`, JSONC) and Claude
 * Code (`.mcp.json`, or `~/.claude.json` with `mcpServers` at the top and under `projects[path]`).
 *
 * Pure: no Node, no DOM. The renderer calls it through `config:import`, discovery in the engine
 * calls it for each file it finds. Placeholders (`${input:…}`, `${env:…}`, `${VAR}`) are kept as
 * text and noted, never expanded from our own environment: a secret must not leak into a server
 * by accident (HARDENING.md 21).
 */
import type { ConfigFormat, ImportedServer, ImportResult } from './host-api.js';
import { startSessionSchema } from './host-api.js';

type HostFormat = Exclude<ConfigFormat, 'auto'>;
type JsonObject = Record<string, unknown>;

/** An imported server plus what the user should know before starting it. */
export interface ImportedServerWithNotes extends ImportedServer {
  notes: string[];
}

const HOSTS: Record<HostFormat, { label: string; defaultFile: string }> = {
  'claude-desktop': { label: 'Claude Desktop', defaultFile: 'claude_desktop_config.json' },
  cursor: { label: 'Cursor', defaultFile: 'mcp.json' },
  vscode: { label: 'VS Code', defaultFile: '.vscode/mcp.json' },
  'claude-code': { label: 'Claude Code', defaultFile: '.mcp.json' },
};

/** Transports that are not stdio (VS Code `http`/`sse`, Claude Code `http`/`sse`/`ws`). */
const REMOTE_TYPES = new Set(['http', 'sse', 'streamable-http', 'streamablehttp', 'ws']);
const MAX_DEPTH = 256;
const MAX_NOTES = 20;
/** The session-start schema of `shared/host-api.ts`: its limits are the importer's limits. */
const serverSchema = startSessionSchema.options[1].shape.server;

export function importConfigText(
  text: string,
  format: ConfigFormat,
  fileName?: string,
): ImportResult {
  const display = displayName(fileName, format);
  const root = parseJsonc(text, display);
  if (!isObject(root)) {
    throw new Error(`${display}: expected a JSON object at the top level (got ${kindOf(root)})`);
  }
  const resolved = format === 'auto' ? detectFormat(root, fileName, display) : format;
  const name = fileName === undefined ? HOSTS[resolved].defaultFile : display;
  const source = `${HOSTS[resolved].label}: ${name}`;
  const result: ImportResult = { format: resolved, servers: [], skipped: [] };
  const inputs = resolved === 'vscode' ? vscodeInputs(root.inputs) : new Map<string, string>();

  const lists: { servers: JsonObject; source: string }[] = [];
  const primary = resolved === 'vscode' ? ['servers', 'mcpServers'] : ['mcpServers', 'servers'];
  const key = primary.find((k) => Object.hasOwn(root, k));
  if (key !== undefined) lists.push({ servers: serverMap(root[key], key, display), source });
  // ~/.claude.json: servers of the "local" scope live under projects[path].mcpServers.
  if (resolved === 'claude-code' && isObject(root.projects)) {
    for (const [path, project] of Object.entries(root.projects)) {
      if (isObject(project) && Object.hasOwn(project, 'mcpServers')) {
        const servers = serverMap(project.mcpServers, `projects[${path}].mcpServers`, display);
        lists.push({ servers, source: `${source} (project ${path})` });
      }
    }
  } else if (key === undefined) {
    throw new Error(
      `${display}: no "mcpServers" or "servers" object found; is this an MCP config file?`,
    );
  }

  for (const list of lists) {
    for (const [serverName, raw] of Object.entries(list.servers)) {
      const entry = convertEntry(serverName, raw, resolved, list.source, inputs);
      if ('reason' in entry)
        result.skipped.push({ name: clip(serverName, 200), reason: entry.reason });
      else result.servers.push(entry);
    }
  }
  return result;
}

/** The notes the importer attached to a server (placeholders left as text, envFile not loaded). */
export function importNotes(server: ImportedServer): string[] {
  const notes = (server as Partial<ImportedServerWithNotes>).notes;
  return Array.isArray(notes) ? notes : [];
}

// ---- format detection ----

function detectFormat(root: JsonObject, fileName: string | undefined, display: string): HostFormat {
  const parts = (fileName ?? '').split(/[\\/]/);
  const base = (parts.at(-1) ?? '').toLowerCase();
  const parent = (parts.at(-2) ?? '').toLowerCase();
  if (base === 'claude_desktop_config.json') return 'claude-desktop';
  if (base === 'mcp.json' && parent === '.vscode') return 'vscode';
  if (base === '.mcp.json' || base === '.claude.json') return 'claude-code';
  const hasMcpServers = Object.hasOwn(root, 'mcpServers');
  if (!hasMcpServers && Object.hasOwn(root, 'servers')) return 'vscode';
  if (hasMcpServers) {
    if (base === 'mcp.json') return 'cursor';
    if (isObject(root.projects)) return 'claude-code';
    const entries = isObject(root.mcpServers) ? Object.values(root.mcpServers) : [];
    // Only Claude Code files carry `type`; only Cursor files carry a bare `url`.
    if (entries.some((e) => isObject(e) && typeof e.type === 'string')) return 'claude-code';
    if (entries.some((e) => isObject(e) && Object.hasOwn(e, 'url'))) return 'cursor';
    return 'claude-desktop';
  }
  if (isObject(root.projects)) return 'claude-code';
  throw new Error(
    `${display}: no "mcpServers" or "servers" object found; is this an MCP config file?`,
  );
}

function displayName(fileName: string | undefined, format: ConfigFormat): string {
  if (fileName === undefined || fileName === '') {
    return format === 'auto' ? 'config' : HOSTS[format].defaultFile;
  }
  const parts = fileName.split(/[\\/]/).filter((p) => p !== '');
  const base = parts.at(-1) ?? fileName;
  const parent = parts.at(-2);
  if (base === 'mcp.json' && (parent === '.vscode' || parent === '.cursor' || parent === 'User')) {
    return `${parent}/${base}`;
  }
  return clip(base, 200);
}

function serverMap(value: unknown, key: string, display: string): JsonObject {
  if (!isObject(value)) {
    throw new Error(
      `${display}: "${clip(key, 80)}" must be an object mapping server names to settings (got ${kindOf(value)})`,
    );
  }
  return value;
}

function vscodeInputs(value: unknown): Map<string, string> {
  const inputs = new Map<string, string>();
  if (!Array.isArray(value)) return inputs;
  for (const input of value) {
    if (isObject(input) && typeof input.id === 'string') {
      inputs.set(input.id, typeof input.description === 'string' ? input.description : '');
    }
  }
  return inputs;
}

// ---- one server entry ----

function convertEntry(
  name: string,
  raw: unknown,
  format: HostFormat,
  source: string,
  inputs: Map<string, string>,
): ImportedServerWithNotes | { reason: string } {
  if (!isObject(raw)) return { reason: `entry must be an object (got ${kindOf(raw)})` };
  if (raw.type !== undefined && typeof raw.type !== 'string') {
    return { reason: `type must be a string (got ${kindOf(raw.type)})` };
  }
  const type = typeof raw.type === 'string' ? raw.type.toLowerCase() : undefined;
  if (type !== undefined && REMOTE_TYPES.has(type)) return { reason: remoteReason(type) };
  if (type !== undefined && type !== 'stdio') {
    return {
      reason: `unsupported server type "${clip(type, 40)}": Pipescope inspects stdio servers`,
    };
  }
  if (raw.command === undefined || raw.command === null) {
    if (raw.url !== undefined && type === undefined)
      return { reason: remoteReason(urlKind(raw.url)) };
    return { reason: 'no command: Pipescope starts stdio servers from a command' };
  }
  if (typeof raw.command !== 'string') {
    return { reason: `command must be a string (got ${kindOf(raw.command)})` };
  }
  if (raw.command.trim() === '') return { reason: 'command is empty' };

  const args: string[] = [];
  if (raw.args !== undefined && raw.args !== null) {
    if (!Array.isArray(raw.args)) {
      return { reason: `args must be an array of strings (got ${kindOf(raw.args)})` };
    }
    for (const [i, arg] of raw.args.entries()) {
      if (typeof arg !== 'string')
        return { reason: `args[${i}] must be a string (got ${kindOf(arg)})` };
      args.push(arg);
    }
  }

  // Null prototype: an env variable called `__proto__` stays a plain own property.
  const env: Record<string, string> = Object.create(null);
  if (raw.env !== undefined && raw.env !== null) {
    if (!isObject(raw.env)) return { reason: `env must be an object (got ${kindOf(raw.env)})` };
    for (const [key, value] of Object.entries(raw.env)) {
      if (key === '' || key.includes('=') || key.includes('\0')) {
        return { reason: `env name "${clip(key, 40)}" is not a valid variable name` };
      }
      if (typeof value === 'string') env[key] = value;
      // VS Code's stdio config allows `string | number | null`; null unsets an inherited
      // variable, and a Pipescope child inherits almost nothing (child-env.ts), so it is dropped.
      else if (format === 'vscode' && value === null) continue;
      else if (format === 'vscode' && typeof value === 'number' && Number.isFinite(value)) {
        env[key] = String(value);
      } else return { reason: `env.${clip(key, 40)} must be a string (got ${kindOf(value)})` };
    }
  }

  let cwd: string | undefined;
  if (raw.cwd !== undefined && raw.cwd !== null) {
    if (typeof raw.cwd !== 'string')
      return { reason: `cwd must be a string (got ${kindOf(raw.cwd)})` };
    if (raw.cwd !== '') cwd = raw.cwd;
  }

  const checked = serverSchema.safeParse({ name, command: raw.command, args, env, cwd });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    return { reason: clip(`${where}${issue?.message ?? 'invalid server settings'}`, 200) };
  }

  const notes = placeholderNotes(raw.command, args, env, cwd, format, inputs);
  if (raw.envFile !== undefined) {
    const file = typeof raw.envFile === 'string' ? `"${clip(raw.envFile, 200)}" ` : '';
    notes.push(`envFile ${file}is not loaded: add the variables it holds to env before starting`);
  }
  const server: ImportedServerWithNotes = { name, command: raw.command, args, env, source, notes };
  if (cwd !== undefined) server.cwd = cwd;
  return server;
}

function remoteReason(kind: string): string {
  return `remote server (${clip(kind, 40)}): Pipescope inspects stdio servers`;
}

function urlKind(url: unknown): string {
  return typeof url === 'string' && /\/sse\/?(?:[?#].*)?$/i.test(url) ? 'sse' : 'http';
}

// ---- placeholders: kept as text, explained ----

const PLACEHOLDER = /\$\{[^{}\s]{1,200}\}/g;

function placeholderNotes(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string | undefined,
  format: HostFormat,
  inputs: Map<string, string>,
): string[] {
  const fields: [string, string][] = [['command', command]];
  for (const [i, arg] of args.entries()) fields.push([`args[${i}]`, arg]);
  for (const [key, value] of Object.entries(env)) fields.push([`env.${key}`, value]);
  if (cwd !== undefined) fields.push(['cwd', cwd]);
  const notes: string[] = [];
  for (const [where, value] of fields) {
    for (const match of value.matchAll(PLACEHOLDER)) {
      if (notes.length >= MAX_NOTES) return notes;
      notes.push(
        `${where} keeps ${match[0]} as text: ${explainPlaceholder(match[0], format, inputs)}`,
      );
    }
  }
  return notes;
}

function explainPlaceholder(
  placeholder: string,
  format: HostFormat,
  inputs: Map<string, string>,
): string {
  const inner = placeholder.slice(2, -1);
  if (inner.startsWith('input:')) {
    const description = inputs.get(inner.slice('input:'.length));
    const asked = description ? ` (VS Code asks for "${clip(description, 80)}")` : '';
    return `fill in the value before starting${asked}`;
  }
  // VS Code and Cursor spell environment variables `${env:NAME}`; a bare `${name}` there is a
  // predefined variable (`${workspaceFolder}`, `${userHome}`). Claude Code spells them `${VAR}`.
  const bareIsEnv = format === 'claude-code' || format === 'claude-desktop';
  if (inner.startsWith('env:') || (bareIsEnv && /^[A-Za-z_][A-Za-z0-9_]*(?::-.*)?$/.test(inner))) {
    return "not expanded from Pipescope's environment; set the value before starting";
  }
  return 'not expanded; replace it before starting';
}

// ---- JSONC: JSON plus comments and trailing commas (VS Code's mcp.json allows both) ----

/**
 * A small strict parser rather than strip-then-JSON.parse: the error names line and column on
 * every engine, and never quotes the file's text (which may hold a secret) back in the message.
 * Objects have a null prototype, so a `__proto__` key is an ordinary own property.
 */
function parseJsonc(text: string, display: string): unknown {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (message: string, at = i): never => {
    let line = 1;
    let lineStart = 0;
    for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) {
      line++;
      lineStart = k + 1;
    }
    throw new Error(
      `${display}: invalid JSON at line ${line}, column ${at - lineStart + 1}: ${message}`,
    );
  };
  const describe = (at: number): string => {
    if (at >= text.length) return 'unexpected end of file';
    const c = text.codePointAt(at) ?? 0;
    return c > 0x20 && c < 0x7f
      ? `unexpected character '${text[at]}'`
      : `unexpected character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  };
  const skipTrivia = (): void => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '/' && text[i + 1] === '/') {
        const end = text.indexOf('\n', i);
        i = end === -1 ? text.length : end;
      } else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end === -1) fail('unterminated /* comment');
        i = end + 2;
      } else return;
    }
  };
  const parseString = (): string => {
    const open = i++;
    let out = '';
    let from = i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c === 0x0a || c === 0x0d) fail('unterminated string', open);
      if (c === 0x22) {
        out += text.slice(from, i++);
        return out;
      }
      if (c < 0x20) fail('control character in string (escape it)');
      if (c === 0x5c) {
        out += text.slice(from, i);
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e !== undefined && Object.hasOwn(simple, e)) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail('invalid escape in string');
        from = i;
      } else i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const parseValue = (depth: number): unknown => {
    skipTrivia();
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels`);
    const c = text[i];
    if (c === '{' || c === '[') {
      const isObj = c === '{';
      const close = isObj ? '}' : ']';
      const obj: JsonObject = Object.create(null);
      const arr: unknown[] = [];
      i++;
      skipTrivia();
      if (text[i] === close) {
        i++;
        return isObj ? obj : arr;
      }
      for (;;) {
        if (isObj) {
          skipTrivia();
          if (text[i] !== '"') fail(`expected a property name in double quotes, ${describe(i)}`);
          const key = parseString();
          skipTrivia();
          if (text[i] !== ':') fail(`expected ':' after a property name, ${describe(i)}`);
          i++;
          obj[key] = parseValue(depth + 1);
        } else arr.push(parseValue(depth + 1));
        skipTrivia();
        if (text[i] === ',') {
          i++;
          skipTrivia();
          if (text[i] !== close) continue; // a trailing comma is allowed (JSONC)
        }
        if (text[i] === close) {
          i++;
          return isObj ? obj : arr;
        }
        fail(`expected ',' or '${close}', ${describe(i)}`);
      }
    }
    if (c === '"') return parseString();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    return fail(describe(i));
  };
  const value = parseValue(0);
  skipTrivia();
  if (i < text.length) fail(`${describe(i)} after the end of the JSON value`);
  return value;
}

// ---- small helpers ----

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
