/**
 * Decisions behind `npm start` (scripts/start.mjs), in plain Node so they are tested: which
 * arguments pass through to browser mode, where the Electron binary is, and why Electron cannot
 * run here (binary never downloaded, no display). It locates the binary the way the `electron`
 * package does (node_modules/electron/path.txt + dist/, honouring ELECTRON_OVERRIDE_DIST_PATH)
 * WITHOUT loading that package's index.js, which starts a download when the binary is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface StartArgs {
  /** `--no-electron`: go straight to browser mode. */
  noElectron: boolean;
  /** `--electron` (npm run start:electron): Electron or an error, never the fallback. */
  requireElectron: boolean;
  /** Browser mode: `--port <n>` (0 = any free port) and `--no-open`. */
  port: number;
  open: boolean;
}

export type ParsedStartArgs = { ok: true; args: StartArgs } | { ok: false; message: string };

export const START_USAGE =
  'usage: node scripts/start.mjs [--no-electron | --electron] [--port <n>] [--no-open]\n' +
  '  --port and --no-open apply to browser mode';

export function parseStartArgs(argv: readonly string[]): ParsedStartArgs {
  const args: StartArgs = { noElectron: false, requireElectron: false, port: 0, open: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-electron') args.noElectron = true;
    else if (a === '--electron') args.requireElectron = true;
    else if (a === '--no-open') args.open = false;
    else if (a === '--port' || a.startsWith('--port=')) {
      const value = a === '--port' ? argv[++i] : a.slice('--port='.length);
      if (value === undefined || !/^\d{1,5}$/.test(value) || Number(value) > 65_535) {
        return { ok: false, message: `--port needs a port number 0-65535\n${START_USAGE}` };
      }
      args.port = Number(value);
    } else if (a === '--help' || a === '-h') {
      return { ok: false, message: START_USAGE };
    } else {
      return { ok: false, message: `unknown option ${a}\n${START_USAGE}` };
    }
  }
  if (args.noElectron && args.requireElectron) {
    return {
      ok: false,
      message: `--electron and --no-electron exclude each other\n${START_USAGE}`,
    };
  }
  return { ok: true, args };
}

export interface LaunchEnvironment {
  /** The project (or installed package) root holding node_modules/. */
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  exists?: (file: string) => boolean;
  readText?: (file: string) => string;
}

export type ElectronLookup = { ok: true; binary: string } | { ok: false; reason: string };

/** The Electron executable, or why there is none (never downloads anything). */
export function findElectronBinary(envIn: LaunchEnvironment): ElectronLookup {
  const exists = envIn.exists ?? existsSync;
  const readText = envIn.readText ?? ((f: string) => readFileSync(f, 'utf8'));
  const pkgDir = path.join(envIn.root, 'node_modules', 'electron');
  if (!exists(path.join(pkgDir, 'package.json'))) {
    return { ok: false, reason: 'Electron is not installed (node_modules/electron missing)' };
  }
  const pathFile = path.join(pkgDir, 'path.txt');
  let relative: string | null = null;
  if (exists(pathFile)) {
    try {
      relative = readText(pathFile).trim() || null;
    } catch {
      relative = null;
    }
  }
  const override = envIn.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const binary = path.join(override, relative ?? defaultExecutable(envIn.platform));
    return exists(binary)
      ? { ok: true, binary }
      : {
          ok: false,
          reason: `Electron runtime not found at ELECTRON_OVERRIDE_DIST_PATH (${binary})`,
        };
  }
  if (!relative) {
    return { ok: false, reason: 'Electron runtime not available (binary not downloaded)' };
  }
  const binary = path.join(pkgDir, 'dist', relative);
  if (!exists(binary)) {
    return {
      ok: false,
      reason: 'Electron runtime not available (binary missing from node_modules/electron/dist)',
    };
  }
  return { ok: true, binary };
}

function defaultExecutable(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/** On Linux and the BSDs a window needs X11 or Wayland; elsewhere assume a desktop. */
export function displayProblem(envIn: Pick<LaunchEnvironment, 'env' | 'platform'>): string | null {
  if (envIn.platform === 'darwin' || envIn.platform === 'win32') return null;
  if (envIn.env.DISPLAY || envIn.env.WAYLAND_DISPLAY) return null;
  return 'no display (DISPLAY and WAYLAND_DISPLAY are unset)';
}

export type LaunchPlan =
  | { mode: 'electron'; binary: string }
  | { mode: 'browser'; reason: string | null }
  | { mode: 'fail'; reason: string };

/**
 * Electron when it can run; otherwise browser mode with the one-line reason (null when the user
 * asked for browser mode), or `fail` when `--electron` demanded Electron.
 */
export function planLaunch(args: StartArgs, envIn: LaunchEnvironment): LaunchPlan {
  if (args.noElectron) return { mode: 'browser', reason: null };
  const lookup = findElectronBinary(envIn);
  const display = lookup.ok ? displayProblem(envIn) : null;
  const reason = !lookup.ok
    ? lookup.reason
    : display
      ? `Electron cannot open a window: ${display}`
      : null;
  if (reason === null && lookup.ok) return { mode: 'electron', binary: lookup.binary };
  const why = reason ?? 'Electron cannot start';
  return args.requireElectron ? { mode: 'fail', reason: why } : { mode: 'browser', reason: why };
}

/** The single line printed before falling back. */
export function fallbackLine(reason: string): string {
  return `${reason}; starting browser mode instead`;
}

/** Environment for the Electron child: it must not inherit "behave as plain Node". */
export function electronChildEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && k !== 'ELECTRON_RUN_AS_NODE') out[k] = v;
  }
  return out;
}
