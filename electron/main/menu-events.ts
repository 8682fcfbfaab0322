/**
 * The File menu's file work, in plain Node: the Import Config… read and the Open/Save Trace…
 * choices. Menu events (AppMenuEvent, declared with HostEvent in shared/host-api.ts) travel on
 * the same `pipescope:event` stream as HostEvents, tagged `type: 'menu'`; browser mode never
 * sends them. The config text is read here with a size cap matching the `config:import` schema,
 * then the renderer imports it through the HostApi as usual; a trace is only named by its path
 * (the host opens it with TraceReader, whatever its size).
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { AppMenuEvent } from '../../shared/host-api.js';
import { err, ok, type Result } from '../../shared/result.js';

export type { AppMenuEvent };

/** The open/save dialog filters of trace files. */
export const TRACE_FILTERS = [
  { name: 'Pipescope trace (JSON Lines)', extensions: ['jsonl'] },
  { name: 'All files', extensions: ['*'] },
];

/** File → Open Trace…: the chosen path as a menu event, or null when the dialog was cancelled. */
export function openTraceEvent(chosen: {
  canceled: boolean;
  filePaths: string[];
}): AppMenuEvent | null {
  if (chosen.canceled || chosen.filePaths.length === 0) return null;
  return { type: 'menu', action: 'open-trace', path: chosen.filePaths[0] };
}

/** File → Save Trace…: the chosen path (`.jsonl` added when missing), or null when cancelled. */
export function saveTraceEvent(chosen: {
  canceled: boolean;
  filePath?: string;
}): AppMenuEvent | null {
  if (chosen.canceled || !chosen.filePath) return null;
  const file = path.extname(chosen.filePath) ? chosen.filePath : `${chosen.filePath}.jsonl`;
  return { type: 'menu', action: 'save-trace', path: file };
}

/** The file name the Save Trace… dialog proposes. */
export function defaultTraceFileName(now = new Date()): string {
  return `pipescope-${now.toISOString().replace(/[:.]/g, '-')}.jsonl`;
}

/** The `config:import` schema's `text` limit (shared/host-api.ts). */
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** Reads a chosen config file as UTF-8; too large, not a file, or unreadable → an error Result. */
export async function readConfigFile(
  file: string,
  maxBytes = MAX_CONFIG_BYTES,
): Promise<Result<{ fileName: string; text: string }>> {
  let handle: Awaited<ReturnType<typeof open>> | null = null;
  try {
    handle = await open(file, 'r');
    const info = await handle.stat();
    if (!info.isFile()) return err('EINVAL', `${path.basename(file)} is not a regular file`);
    if (info.size > maxBytes) {
      return err('ETOOBIG', `${path.basename(file)} is ${info.size} bytes (limit ${maxBytes})`);
    }
    const text = await handle.readFile({ encoding: 'utf8' });
    return ok({ fileName: file, text });
  } catch (e) {
    return err('EREAD', `cannot read ${path.basename(file)}: ${(e as Error).message}`);
  } finally {
    await handle?.close();
  }
}
