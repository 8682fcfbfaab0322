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

import type { ConfigFormat, ImportedServer, ImportResult } from '../../../shared/host-api.js';
import {
  clip,
  convertEntry,
  type HostFormat,
  type ImportedServerWithNotes,
  isObject,
  kindOf,
} from './import-entry.js';
import { type JsonObject, parseJsonc } from './jsonc.js';

export type { ImportedServerWithNotes } from './import-entry.js';

const HOSTS: Record<HostFormat, { label: string; defaultFile: string }> = {
  'claude-desktop': { label: 'Claude Desktop', defaultFile: 'claude_desktop_config.json' },
  cursor: { label: 'Cursor', defaultFile: 'mcp.json' },
  vscode: { label: 'VS Code', defaultFile: '.vscode/mcp.json' },
  'claude-code': { label: 'Claude Code', defaultFile: '.mcp.json' },
};

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
