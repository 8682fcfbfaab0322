/**
 * What the menu tells the renderer, and the File → Import Config… file read. Menu events travel
 * on the same `pipescope:event` stream as HostEvents (the preload's `subscribe`), tagged
 * `type: 'menu'`; browser mode never sends them. The config text is read here with a size cap
 * matching the `config:import` schema, then the renderer imports it through the HostApi as usual.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import { err, ok, type Result } from '../../shared/result.js';

export type AppMenuEvent =
  | { type: 'menu'; action: 'new-session' }
  | { type: 'menu'; action: 'import-config'; fileName: string; text: string };

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
