/**
 * One server entry of an imported config (import.ts reads the file and finds the
 * entries): checked against the session-start schema and turned into an ImportedServer, or a
 * reason it was skipped; placeholders are kept as text and explained in notes. Pure: no Node,
 * no DOM.
 */

import type { ConfigFormat, ImportedServer } from '../../../shared/host-api.js';
import { startSessionSchema } from '../../../shared/host-api.js';
import type { JsonObject } from './jsonc.js';

export type HostFormat = Exclude<ConfigFormat, 'auto'>;

/** An imported server plus what the user should know before starting it. */
export interface ImportedServerWithNotes extends ImportedServer {
  notes: string[];
}

/** Transports that are not stdio (VS Code `http`/`sse`, Claude Code `http`/`sse`/`ws`). */
const REMOTE_TYPES = new Set(['http', 'sse', 'streamable-http', 'streamablehttp', 'ws']);
const MAX_NOTES = 20;
/** The session-start schema of `shared/host-api.ts`: its limits are the importer's limits. */
const serverSchema = startSessionSchema.options[1].shape.server;

// ---- one server entry ----

export function convertEntry(
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

// ---- small helpers (import.ts uses them too) ----

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
