/**
 * Discovery of other hosts' MCP config files in their default locations: the user-level file of
 * each host for the current platform, and the project files in the current working directory.
 * Feeds `config:discover` (session-manager.ts); each file found goes through the same importer as
 * the file picker (electron/engine/config/import.ts).
 *
 * Never throws. A missing, unreadable or non-regular file is left out; a file that exists but is
 * too big or does not import becomes an entry with `error`. Nothing is expanded from our own
 * environment: `env` is only used to find directories (APPDATA, XDG_CONFIG_HOME).
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ConfigFormat, DiscoveredConfig } from '../../../shared/host-api.js';
import { importConfigText } from './import.js';
import { tapIndex } from './tap-argv.js';

export interface DiscoverOptions {
  home?: string;
  cwd?: string;
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
}

/** Config files are small; anything bigger is not read (HARDENING: bounded input). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export interface ConfigCandidate {
  path: string;
  format: Exclude<ConfigFormat, 'auto'>;
}

/**
 * Where each host keeps its file, user level first, then the project (cwd):
 * - Claude Desktop: macOS `~/Library/Application Support/Claude/`, Windows `%APPDATA%\Claude\`,
 *   Linux `$XDG_CONFIG_HOME/Claude/` (default `~/.config`), file `claude_desktop_config.json`.
 * - Claude Code: `~/.claude.json` (user and per-project "local" servers), `<project>/.mcp.json`.
 * - Cursor: `~/.cursor/mcp.json`, `<project>/.cursor/mcp.json`.
 * - VS Code: `mcp.json` in the user folder (`Code/User`, also `Code - Insiders/User`) under the
 *   same application-data directory as Claude Desktop's, and `<project>/.vscode/mcp.json`.
 */
export function configCandidates(opts: DiscoverOptions = {}): ConfigCandidate[] {
  const home = opts.home ?? homedir();
  const cwd = opts.cwd ?? process.cwd();
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const appData = appDataDir(home, platform, env);
  const candidates: ConfigCandidate[] = [
    { path: join(appData, 'Claude', 'claude_desktop_config.json'), format: 'claude-desktop' },
    { path: join(home, '.claude.json'), format: 'claude-code' },
    { path: join(home, '.cursor', 'mcp.json'), format: 'cursor' },
    { path: join(appData, 'Code', 'User', 'mcp.json'), format: 'vscode' },
    { path: join(appData, 'Code - Insiders', 'User', 'mcp.json'), format: 'vscode' },
    { path: join(cwd, '.mcp.json'), format: 'claude-code' },
    { path: join(cwd, '.cursor', 'mcp.json'), format: 'cursor' },
    { path: join(cwd, '.vscode', 'mcp.json'), format: 'vscode' },
  ];
  // With cwd = home, `.cursor/mcp.json` is both the user and the project file: list it once.
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = resolve(c.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function discoverConfigs(opts: DiscoverOptions = {}): Promise<DiscoveredConfig[]> {
  let candidates: ConfigCandidate[];
  try {
    candidates = configCandidates(opts);
  } catch {
    return []; // e.g. os.homedir() failing in a stripped-down environment
  }
  const found = await Promise.all(candidates.map((c) => inspect(c)));
  return found.filter((d): d is DiscoveredConfig => d !== null);
}

function appDataDir(
  home: string,
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (platform === 'win32') {
    const appData = env.APPDATA;
    return appData && isAbsolute(appData) ? appData : join(home, 'AppData', 'Roaming');
  }
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, '.config');
}

async function inspect(candidate: ConfigCandidate): Promise<DiscoveredConfig | null> {
  const read = await readBounded(candidate.path);
  if (read === null) return null;
  const base = { path: candidate.path, format: candidate.format };
  if ('size' in read) {
    const mib = MAX_CONFIG_BYTES / (1024 * 1024);
    return {
      ...base,
      result: null,
      error: `file is larger than ${mib} MiB (${read.size} bytes); not read`,
    };
  }
  try {
    const result = importConfigText(read.text, candidate.format, candidate.path);
    // Entries that already run through `pipescope tap` (the recogniser tap install uses).
    const tapped = result.servers.filter((s) => tapIndex(s.command, s.args) >= 0).length;
    return { ...base, result, error: null, ...(tapped > 0 ? { tapped } : {}) };
  } catch (e) {
    return { ...base, result: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The file's text, `{ size }` if it is too big, or null if it is missing or unreadable. */
async function readBounded(path: string): Promise<{ text: string } | { size: number } | null> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO planted at a config path must not hang discovery.
    const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
    handle = await open(path, flags);
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return null;
    if (stat.size > MAX_CONFIG_BYTES) return { size: stat.size };
    // Read in chunks up to one byte past the limit, in case the file grew since fstat.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, MAX_CONFIG_BYTES + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > MAX_CONFIG_BYTES) return { size: length };
    }
    return { text: decode(Buffer.concat(chunks, length)) };
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** UTF-8 (BOM dropped), or UTF-16 with a BOM as Windows PowerShell's `>` writes it. */
function decode(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}
