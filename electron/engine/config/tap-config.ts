/**
 * `pipescope tap install` / `uninstall` as a text transform (issue 20): a host config's text in,
 * the same text with the `command` and `args` of its stdio servers wrapped in `pipescope tap`
 * (or unwrapped) out, plus a list of what happened to each server. Pure: no Node, no DOM;
 * tap-install.ts reads and writes the files.
 *
 * Only the text spans of `command` and `args` values change (an `args` member is inserted after
 * `command` when the entry had none), so comments, trailing commas, key order, indentation and
 * line endings elsewhere stay byte for byte. What install replaced is returned as manifest
 * entries; given them, uninstall puts the exact original text back. Without them (or when the
 * entry was edited since), it restores the command and arguments from the wrapped args.
 */

import type { ConfigFormat } from '../../../shared/host-api.js';
import type { TapChange } from '../../../shared/tap-config.js';
import { importConfigText } from './import.js';
import { clip, convertEntry, type HostFormat, isObject } from './import-entry.js';
import {
  type JsonMember,
  type JsonNode,
  type JsonObjectNode,
  jsonValue,
  memberOf,
  parseJsoncNode,
} from './jsonc.js';
import {
  type Argv,
  renderArray,
  type TapLauncher,
  tapIndex,
  unwrapArgv,
  wrapArgv,
} from './tap-argv.js';

export type { TapChange, TapStatus } from '../../../shared/tap-config.js';
export type { TapLauncher } from './tap-argv.js';

/** The host names the tap is told (`--host`) and the restart line names. */
export const HOST_LABELS: Record<HostFormat, string> = {
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
  'claude-code': 'Claude Code',
};

/** The config cannot be tapped as asked (unparsable, not an MCP config, unknown server). */
export class TapConfigError extends Error {}

/** What install replaced in one entry, so that uninstall can put it back exactly. */
export interface TapManifestEntry {
  /** Keys from the root to the entry: ["mcpServers", name] or ["projects", p, "mcpServers", name]. */
  path: string[];
  original: { command: string; args: string | null };
  /** `inserted`: the `, "args": [...]` text added after `command` when there was no args. */
  wrapped: { command: string; args: string; inserted: string | null };
}

interface Plan {
  format: HostFormat;
  host: string;
  text: string;
  changed: boolean;
  changes: TapChange[];
}

export interface TapInstallPlan extends Plan {
  /** One per entry wrapped by this run. */
  entries: TapManifestEntry[];
}

export interface TapUninstallPlan extends Plan {
  /** Entries still tapped after the run (their args could not be read back). */
  left: string[][];
}

export interface TapPlanOptions {
  /** The file's path or name: the format is detected from it and from the text. */
  fileName?: string;
  format?: ConfigFormat;
}

/** The key a manifest entry is found by (its path). */
export function entryKey(path: readonly string[]): string {
  return JSON.stringify(path);
}

export function planTapInstall(
  text: string,
  opts: TapPlanOptions & { servers?: readonly string[]; launcher: TapLauncher },
): TapInstallPlan {
  const cfg = readConfig(text, opts);
  let entries = cfg.entries;
  if (opts.servers && opts.servers.length > 0) {
    const present = [...new Set(entries.map((e) => e.name))];
    const unknown = [...new Set(opts.servers)].filter((n) => !present.includes(n));
    if (unknown.length > 0) {
      const names = present.map((n) => JSON.stringify(clip(n, 80))).join(', ') || '(none)';
      throw new TapConfigError(
        `${cfg.display}: no server named ${unknown.map((n) => JSON.stringify(clip(n, 80))).join(', ')}; the servers in it: ${names}`,
      );
    }
    const wanted = new Set(opts.servers);
    entries = entries.filter((e) => wanted.has(e.name));
  }
  const edits: Edit[] = [];
  const changes: TapChange[] = [];
  const manifest: TapManifestEntry[] = [];
  for (const entry of entries) {
    const base = { name: entry.name, location: entry.location };
    const kind = classify(entry, cfg.format);
    if (kind.kind === 'tapped') changes.push({ ...base, status: 'already-tapped' });
    else if (kind.kind === 'skip')
      changes.push({ ...base, status: 'skipped', reason: kind.reason });
    else {
      const wrap = wrapEntry(text, entry, kind.argv, opts.launcher, cfg.host);
      edits.push(...wrap.edits);
      manifest.push(wrap.manifest);
      changes.push({ ...base, status: 'wrapped' });
    }
  }
  return finish(text, cfg, edits, changes, opts, { entries: manifest });
}

export function planTapUninstall(
  text: string,
  opts: TapPlanOptions & { manifest?: readonly TapManifestEntry[] | null },
): TapUninstallPlan {
  const cfg = readConfig(text, opts);
  const recorded = new Map((opts.manifest ?? []).map((m) => [entryKey(m.path), m]));
  const edits: Edit[] = [];
  const changes: TapChange[] = [];
  const left: string[][] = [];
  for (const entry of cfg.entries) {
    const raw = jsonValue(entry.node);
    if (!isObject(raw) || tapIndex(raw.command, raw.args) < 0) continue;
    const obj = entry.node as JsonObjectNode;
    const command = memberOf(obj, 'command') as JsonMember;
    const args = memberOf(obj, 'args') as JsonMember;
    const base = { name: entry.name, location: entry.location };
    const m = recorded.get(entryKey(entry.path));
    if (m && matchesWrapped(text, m, command, args)) {
      if (m.wrapped.inserted !== null) {
        const end = command.value.end + m.wrapped.inserted.length;
        edits.push({ start: command.value.start, end, text: m.original.command });
      } else {
        edits.push(replace(command.value, m.original.command));
        edits.push(replace(args.value, m.original.args ?? '[]'));
      }
      changes.push({ ...base, status: 'unwrapped', exact: true });
      continue;
    }
    const original = unwrapArgv(raw.command, raw.args);
    if (!original) {
      left.push(entry.path);
      const reason = 'its args hold no server command after `--`; left as it is';
      changes.push({ ...base, status: 'left-tapped', reason });
      continue;
    }
    edits.push(replace(command.value, JSON.stringify(original.command)));
    const like = text.slice(args.value.start, args.value.end);
    edits.push(replace(args.value, renderArray(original.args, like)));
    const why = m ? 'the entry changed since install' : 'no record of it in the manifest';
    const reason = `${why}: command and args restored from the wrapped args (same values; the layout may differ)`;
    changes.push({ ...base, status: 'unwrapped', exact: false, reason });
  }
  return finish(text, cfg, edits, changes, opts, { left });
}

// ---- reading the config ----

interface Entry {
  name: string;
  location: string;
  path: string[];
  node: JsonNode;
}

interface Config {
  format: HostFormat;
  host: string;
  display: string;
  entries: Entry[];
}

function readConfig(text: string, opts: TapPlanOptions): Config {
  let format: ConfigFormat;
  let root: JsonNode;
  try {
    // The importer's rules decide the format and what a config must look like.
    format = importConfigText(text, opts.format ?? 'auto', opts.fileName).format;
    root = parseJsoncNode(text, 'config');
  } catch (e) {
    throw new TapConfigError(e instanceof Error ? e.message : String(e));
  }
  if (format === 'auto') throw new TapConfigError('the config format could not be detected');
  const display = clip(opts.fileName?.split(/[\\/]/).at(-1) || 'config', 200);
  return { format, host: HOST_LABELS[format], display, entries: entriesOf(root, format) };
}

/** Every server entry, in file order, where import.ts finds them (the last of duplicate keys). */
function entriesOf(root: JsonNode, format: HostFormat): Entry[] {
  const out: Entry[] = [];
  if (root.kind !== 'object') return out;
  const keys = format === 'vscode' ? ['servers', 'mcpServers'] : ['mcpServers', 'servers'];
  const key = keys.find((k) => memberOf(root, k) !== undefined);
  if (key !== undefined) addList(out, memberOf(root, key)?.value, [key], key);
  const projects = memberOf(root, 'projects')?.value;
  if (format === 'claude-code' && projects?.kind === 'object') {
    for (const project of lastOfEach(projects)) {
      if (project.value.kind !== 'object') continue;
      const servers = memberOf(project.value, 'mcpServers')?.value;
      const where = `projects[${JSON.stringify(project.key)}].mcpServers`;
      addList(out, servers, ['projects', project.key, 'mcpServers'], where);
    }
  }
  return out;
}

function addList(out: Entry[], list: JsonNode | undefined, path: string[], location: string): void {
  if (list?.kind !== 'object') return;
  for (const m of lastOfEach(list)) {
    out.push({ name: m.key, location, path: [...path, m.key], node: m.value });
  }
}

/** The members a JSON reader keeps: of duplicate keys, the last. */
function lastOfEach(node: JsonObjectNode): JsonMember[] {
  const last = new Map<string, JsonMember>();
  for (const m of node.members) last.set(m.key, m);
  return node.members.filter((m) => last.get(m.key) === m);
}

type Kind = { kind: 'tapped' } | { kind: 'skip'; reason: string } | { kind: 'stdio'; argv: Argv };

/** Tapped already, a stdio server to wrap, or skipped with the importer's reason. */
function classify(entry: Entry, format: HostFormat): Kind {
  const raw = jsonValue(entry.node);
  if (isObject(raw) && tapIndex(raw.command, raw.args) >= 0) return { kind: 'tapped' };
  // Only what decides the transport and the argv: env and cwd pass through the tap untouched.
  let probe: unknown = raw;
  if (isObject(raw)) {
    const picked: Record<string, unknown> = Object.create(null);
    for (const k of ['type', 'command', 'args', 'url'])
      if (Object.hasOwn(raw, k)) picked[k] = raw[k];
    probe = picked;
  }
  const server = convertEntry(entry.name, probe, format, '', new Map());
  if ('reason' in server) return { kind: 'skip', reason: server.reason };
  return { kind: 'stdio', argv: { command: server.command, args: server.args } };
}

// ---- editing ----

interface Edit {
  start: number;
  end: number;
  text: string;
}

function replace(node: JsonNode, text: string): Edit {
  return { start: node.start, end: node.end, text };
}

function wrapEntry(
  text: string,
  entry: Entry,
  argv: Argv,
  launcher: TapLauncher,
  host: string,
): { edits: Edit[]; manifest: TapManifestEntry } {
  const obj = entry.node as JsonObjectNode;
  const command = memberOf(obj, 'command') as JsonMember;
  const args = memberOf(obj, 'args');
  const wrapped = wrapArgv(launcher, entry.name, host, argv);
  const commandText = JSON.stringify(wrapped.command);
  const originalArgs = args ? text.slice(args.value.start, args.value.end) : null;
  const argsText = renderArray(wrapped.args, originalArgs);
  const original = {
    command: text.slice(command.value.start, command.value.end),
    args: originalArgs,
  };
  let inserted: string | null = null;
  const edits: Edit[] = [];
  if (args) {
    edits.push(replace(command.value, commandText), replace(args.value, argsText));
  } else {
    inserted = `${separator(text, obj, command)}"args"${colon(text, command)}${argsText}`;
    edits.push(replace(command.value, commandText + inserted));
  }
  return {
    edits,
    manifest: {
      path: entry.path,
      original,
      wrapped: { command: commandText, args: argsText, inserted },
    },
  };
}

/**
 * What goes between `command` and an inserted `args`, in the entry's style: a comma, then the
 * line ending and indentation of the command's line when it stands on a line of its own, else
 * the spacing the object opens with (`{ "command": …` → `, `).
 */
function separator(text: string, obj: JsonObjectNode, command: JsonMember): string {
  const lineStart = text.lastIndexOf('\n', command.keyStart - 1) + 1;
  const indent = text.slice(lineStart, command.keyStart);
  if (lineStart > 0 && /^[ \t]*$/.test(indent)) {
    return `,${text[lineStart - 2] === '\r' ? '\r\n' : '\n'}${indent}`;
  }
  const first = obj.members[0];
  const opening = text.slice(obj.start + 1, first ? first.keyStart : obj.start + 1);
  return `,${/^[ \t]*$/.test(opening) ? opening : ' '}`;
}

/** The `: ` between the command's key and value (unless a comment sits there). */
function colon(text: string, command: JsonMember): string {
  const between = text.slice(command.keyEnd, command.value.start);
  return /^[ \t]*:[ \t]*$/.test(between) ? between : ': ';
}

/** The entry holds exactly the text install wrote (so the original can go back verbatim). */
function matchesWrapped(
  text: string,
  m: TapManifestEntry,
  command: JsonMember,
  args: JsonMember,
): boolean {
  if (!isValueText(m.original.command, 'string')) return false;
  if (m.original.args !== null && !isValueText(m.original.args, 'array', 'null')) return false;
  if (text.slice(command.value.start, command.value.end) !== m.wrapped.command) return false;
  if (m.wrapped.inserted !== null) return text.startsWith(m.wrapped.inserted, command.value.end);
  return (
    m.original.args !== null && text.slice(args.value.start, args.value.end) === m.wrapped.args
  );
}

/** A manifest's text is put back only if it is one JSON value of the kind it replaces. */
function isValueText(text: unknown, ...kinds: JsonNode['kind'][]): boolean {
  if (typeof text !== 'string') return false;
  try {
    const node = parseJsoncNode(text, 'manifest');
    return kinds.includes(node.kind) && node.start === 0 && node.end === text.length;
  } catch {
    return false;
  }
}

function finish<T extends object>(
  text: string,
  cfg: Config,
  edits: Edit[],
  changes: TapChange[],
  opts: TapPlanOptions,
  extra: T,
): Plan & T {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  }
  // The result must still be the same kind of config (a defect here must not reach the disk).
  if (out !== text) readConfig(out, { ...opts, format: cfg.format });
  return {
    format: cfg.format,
    host: cfg.host,
    text: out,
    changed: out !== text,
    changes,
    ...extra,
  };
}
