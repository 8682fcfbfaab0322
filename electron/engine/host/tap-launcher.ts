/**
 * What a server entry the app taps (`config:tap-install`) runs: a Node binary and this
 * package's bin/pipescope.js. From the CLI or browser mode, the Node running Pipescope
 * (defaultTapLauncher). Under Electron, `process.execPath` is Electron, which a host would
 * start as the app: the launcher of tap install has no `env` to set ELECTRON_RUN_AS_NODE in
 * the entry, so the entry runs the `node` found on PATH instead, and the result says so.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { defaultTapLauncher, TapConfigError } from '../config/tap-install.js';

export interface AppTapLauncher {
  node: string;
  bin: string;
  /** The native relay that starts the tap's Node, where it runs (TapLauncher.front). */
  front?: string;
  /** Why this Node, when it is not the one running Pipescope. */
  note: string | null;
}

export interface LauncherEnv {
  /** process.versions.electron */
  electron?: string;
  /** $PATH */
  pathVar?: string;
  platform?: NodeJS.Platform;
  /** What `--version` of a Node binary prints (tests); default: runs it. */
  version?: (node: string) => Promise<string | null>;
}

/** The oldest Node the `pipescope` command runs on (package.json "engines"). */
const MIN_NODE: [number, number] = [20, 19];

function runVersion(node: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(node, ['--version'], { timeout: 5000, windowsHide: true }, (e, stdout) =>
      resolve(e ? null : String(stdout).trim()),
    );
  });
}

/** The first executable `node` on PATH (absolute directories only), or null. */
export async function nodeOnPath(
  pathVar: string,
  platform: NodeJS.Platform = process.platform,
): Promise<string | null> {
  const names = platform === 'win32' ? ['node.exe'] : ['node'];
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of pathVar.split(sep)) {
    if (!dir || !path.isAbsolute(dir)) continue; // a relative PATH entry depends on the cwd
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        await access(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  return null;
}

function oldEnough(version: string): boolean {
  const m = /^v(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/** The launcher for this process; throws TapConfigError when no usable Node is found. */
export async function appTapLauncher(env: LauncherEnv = {}): Promise<AppTapLauncher> {
  const electron = 'electron' in env ? env.electron : process.versions.electron;
  const base = defaultTapLauncher();
  if (/[\\/]app\.asar[\\/]/.test(base.bin)) {
    throw new TapConfigError(
      'a packaged Pipescope has no bin/pipescope.js a host can run; tap from a terminal with `pipescope tap install --config FILE` (npm install -g pipescope)',
    );
  }
  if (!electron) return { ...base, note: null };
  const found = await nodeOnPath(env.pathVar ?? process.env.PATH ?? '', env.platform);
  if (found === null) {
    throw new TapConfigError(
      'no `node` on PATH: a tapped entry runs bin/pipescope.js with Node, and the app itself is Electron (which a host would start as the app); install Node 20.19 or later, or tap from a terminal with `pipescope tap install`',
    );
  }
  const version = await (env.version ?? runVersion)(found);
  if (version === null || !oldEnough(version)) {
    throw new TapConfigError(
      `the node on PATH (${found}) ${version === null ? 'did not run' : `is ${version}`}: pipescope needs Node ${MIN_NODE.join('.')} or later`,
    );
  }
  return {
    node: found,
    bin: base.bin,
    ...(base.front ? { front: base.front } : {}),
    note: `The app runs on Electron, which a host would start as the app, so the tapped entries run the node on PATH: ${found} (${version}).`,
  };
}
