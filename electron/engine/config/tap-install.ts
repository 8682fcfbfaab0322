/**
 * The files of `pipescope tap install` / `uninstall` (issue 20): reads a host config, runs the
 * transform of tap-config.ts, and writes the result safely. Before any write the file as it was
 * is copied next to it (`<config>.pipescope-backup-<UTC time>`, never over an existing file);
 * every write goes to a temporary file in the same folder, with the config's mode, then is
 * renamed over it. What install replaced is kept in a manifest beside the config
 * (`<config>.pipescope-tap.json`), which uninstall reads to put the original text back exactly.
 *
 * Used by the CLI (electron/cli/tap-config-commands.ts) and by the HostApi handler of
 * `config:tap-install` / `config:tap-uninstall` (engine/host/handlers/config.ts, which also asks
 * for a dry run to show what would change before it does): both get a structured result
 * (shared/tap-config.ts), or a TapConfigError whose message is one line for the user.
 */

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, type FileHandle, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ConfigFormat } from '../../../shared/host-api.js';
import type { TapResult } from '../../../shared/tap-config.js';
import { RELAY_BINARY, relayBinaryUnavailable } from '../../native-binary.js';
import { builtPaths } from '../../paths.js';
import { MAX_CONFIG_BYTES } from './discovery.js';
import { isObject } from './import-entry.js';
import {
  entryKey,
  planTapInstall,
  planTapUninstall,
  TapConfigError,
  type TapLauncher,
  type TapManifestEntry,
} from './tap-config.js';

export type { TapChange, TapResult } from '../../../shared/tap-config.js';
export type { TapLauncher } from './tap-config.js';
export { TapConfigError } from './tap-config.js';

export interface TapFileOptions {
  /** The host config file (a symlink is followed: the file it names is edited). */
  config: string;
  /** Overrides the format detected from the file's name and shape. */
  format?: ConfigFormat;
  /** Plan only: the result says what would change (`changed`); nothing is written. */
  dryRun?: boolean;
}

export interface TapInstallOptions extends TapFileOptions {
  /** Only these servers (by name); an unknown name is an error. */
  servers?: readonly string[];
  /** Default: this Node binary and this package's bin/pipescope.js (defaultTapLauncher). */
  launcher?: TapLauncher;
}

export type TapInstallResult = TapResult & { action: 'install' };
export type TapUninstallResult = TapResult & { action: 'uninstall' };

const MANIFEST_FORMAT = 'pipescope-tap-manifest';

/**
 * `process.execPath` and bin/pipescope.js, and on Linux the native relay in front where it is
 * built (TapLauncher.front). Under Electron, execPath is Electron: pass a launcher.
 */
export function defaultTapLauncher(): TapLauncher {
  const launcher: TapLauncher = { node: process.execPath, bin: builtPaths.cliBin() };
  // Only one that can start here: the host would start every tapped server through it.
  if (relayBinaryUnavailable(RELAY_BINARY) === null) launcher.front = RELAY_BINARY;
  return launcher;
}

/** A result's fields before anything is written (backup, restart: none yet). */
function unchanged(
  config: string,
  plan: {
    format: TapInstallResult['format'];
    host: TapInstallResult['host'];
    changed: boolean;
    changes: TapInstallResult['servers'];
  },
  manifest: unknown[] | null,
  manifestPath: string,
) {
  return {
    config,
    format: plan.format,
    host: plan.host,
    changed: plan.changed,
    servers: plan.changes,
    backup: null as string | null,
    manifest: manifest === null ? null : manifestPath,
    restart: null as string | null,
  };
}

export function manifestPathOf(config: string): string {
  return `${config}.pipescope-tap.json`;
}

export async function tapInstall(opts: TapInstallOptions): Promise<TapInstallResult> {
  const launcher = opts.launcher ?? defaultTapLauncher();
  if (
    !path.isAbsolute(launcher.node) ||
    !path.isAbsolute(launcher.bin) ||
    (launcher.front !== undefined && !path.isAbsolute(launcher.front))
  ) {
    throw new TapConfigError(
      'the tap launcher needs absolute paths (node, bin/pipescope.js and the relay in front)',
    );
  }
  await readFile(launcher.bin).catch(() => {
    throw new TapConfigError(`the pipescope command is not at ${launcher.bin}; build it first`);
  });
  const file = await readConfigFile(opts.config);
  const manifestPath = manifestPathOf(file.path);
  const manifest = await readManifest(manifestPath);
  const plan = planTapInstall(file.text, {
    fileName: file.path,
    format: opts.format,
    servers: opts.servers,
    launcher,
  });
  const result: TapInstallResult = {
    action: 'install',
    ...unchanged(file.path, plan, manifest, manifestPath),
  };
  if (opts.dryRun) return { ...result, dryRun: true };
  if (!plan.changed) return result;
  result.backup = await backup(file.path);
  // The manifest first: an entry for a write that then failed matches no text, and is harmless.
  const fresh = new Set(plan.entries.map((e) => entryKey(e.path)));
  const kept = (manifest ?? []).filter((e) => !fresh.has(entryKey(e.path)));
  await writeManifest(manifestPath, [...kept, ...plan.entries], plan.format, file);
  result.manifest = manifestPath;
  await writeAtomic(file, plan.text);
  result.restart = restartLine(plan.host);
  return result;
}

export async function tapUninstall(opts: TapFileOptions): Promise<TapUninstallResult> {
  const file = await readConfigFile(opts.config);
  const manifestPath = manifestPathOf(file.path);
  const manifest = await readManifest(manifestPath);
  const plan = planTapUninstall(file.text, {
    fileName: file.path,
    format: opts.format,
    manifest,
  });
  const result: TapUninstallResult = {
    action: 'uninstall',
    ...unchanged(file.path, plan, manifest, manifestPath),
  };
  if (opts.dryRun) return { ...result, dryRun: true };
  if (plan.changed) {
    result.backup = await backup(file.path);
    await writeAtomic(file, plan.text);
    result.restart = restartLine(plan.host);
  }
  if (manifest !== null) {
    // Keep only what still describes a tapped entry of the file.
    const left = new Set(plan.left.map(entryKey));
    const kept = manifest.filter((e) => left.has(entryKey(e.path)));
    if (kept.length > 0) await writeManifest(manifestPath, kept, plan.format, file);
    else {
      await rm(manifestPath, { force: true }).catch(() => undefined);
      result.manifest = null;
    }
  }
  return result;
}

function restartLine(host: string): string {
  return `Restart ${host} for the change to take effect.`;
}

// ---- reading ----

interface ConfigFile {
  path: string;
  text: string;
  bytes: Buffer;
  mode: number;
}

function describe(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT') return 'no such file';
  if (err?.code === 'EACCES' || err?.code === 'EPERM') return 'permission denied';
  if (err?.code === 'EISDIR') return 'is a folder';
  return err?.code ?? (e instanceof Error ? e.message : String(e));
}

async function readConfigFile(given: string): Promise<ConfigFile> {
  let real: string;
  try {
    real = await realpath(given);
  } catch (e) {
    throw new TapConfigError(`cannot read ${given}: ${describe(e)}`);
  }
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted at the path must not hang the command.
    handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new TapConfigError(`cannot read ${given}: ${describe(e)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new TapConfigError(`${given} is not a regular file`);
    if (stat.size > MAX_CONFIG_BYTES) {
      throw new TapConfigError(`${given} is larger than ${MAX_CONFIG_BYTES} bytes; not read`);
    }
    const bytes = await handle.readFile();
    const text = bytes.toString('utf8');
    // Byte-exact edits need text that encodes back to the same bytes.
    if (!Buffer.from(text, 'utf8').equals(bytes)) {
      throw new TapConfigError(`${given} is not UTF-8 text (UTF-16?); save it as UTF-8 first`);
    }
    return { path: real, text, bytes, mode: stat.mode & 0o7777 };
  } catch (e) {
    if (e instanceof TapConfigError) throw e;
    throw new TapConfigError(`cannot read ${given}: ${describe(e)}`);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The manifest's entries, or null when there is none or it cannot be used. */
async function readManifest(file: string): Promise<TapManifestEntry[] | null> {
  let value: unknown;
  try {
    const text = await readFile(file, 'utf8');
    if (text.length > MAX_CONFIG_BYTES) return null;
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value) || value.format !== MANIFEST_FORMAT || !Array.isArray(value.entries)) {
    return null;
  }
  return value.entries.filter(isManifestEntry);
}

function isManifestEntry(e: unknown): e is TapManifestEntry {
  const str = (v: unknown): v is string => typeof v === 'string';
  return (
    isObject(e) &&
    Array.isArray(e.path) &&
    e.path.every(str) &&
    isObject(e.original) &&
    str(e.original.command) &&
    (e.original.args === null || str(e.original.args)) &&
    isObject(e.wrapped) &&
    str(e.wrapped.command) &&
    str(e.wrapped.args) &&
    (e.wrapped.inserted === null || str(e.wrapped.inserted))
  );
}

// ---- writing ----

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** Copies the file beside itself under a new name (never over an existing one); its path. */
async function backup(file: string): Promise<string> {
  const base = `${file}.pipescope-backup-${stamp(new Date())}`;
  for (let n = 1; n <= 100; n++) {
    const target = n === 1 ? base : `${base}-${n}`;
    try {
      // copyFile keeps the mode: a backup of a file holding secrets is as private as the file.
      await copyFile(file, target, constants.COPYFILE_EXCL);
      return target;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new TapConfigError(
        `cannot back up ${file} to ${target}: ${describe(e)}; nothing changed`,
      );
    }
  }
  throw new TapConfigError(
    `cannot back up ${file}: too many backups with this time; nothing changed`,
  );
}

async function writeManifest(
  file: string,
  entries: TapManifestEntry[],
  format: string,
  config: ConfigFile,
): Promise<void> {
  const body = {
    format: MANIFEST_FORMAT,
    version: 1,
    config: config.path,
    hostFormat: format,
    entries,
  };
  await writeFileAtomic(file, `${JSON.stringify(body, null, 2)}\n`, config.mode & 0o666);
}

/** Writes the config's new text, unless the file changed since it was read. */
async function writeAtomic(config: ConfigFile, text: string): Promise<void> {
  await writeFileAtomic(config.path, text, config.mode, async () => {
    const now = await readFile(config.path).catch(() => null);
    if (now === null || !now.equals(config.bytes)) {
      throw new TapConfigError(
        `${config.path} changed while Pipescope edited it; nothing written, run it again`,
      );
    }
  });
}

/** A temporary file in the same folder, with `mode`, synced, then renamed over `file`. */
async function writeFileAtomic(
  file: string,
  text: string,
  mode: number,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(mode); // the umask may have taken bits away at open
      await handle.sync();
    } finally {
      await handle.close();
    }
    await beforeRename?.();
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    if (e instanceof TapConfigError) throw e;
    throw new TapConfigError(`cannot write ${file}: ${describe(e)}`);
  }
}
