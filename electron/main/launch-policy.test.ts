import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  displayProblem,
  electronChildEnv,
  fallbackLine,
  findElectronBinary,
  type LaunchEnvironment,
  parseStartArgs,
  planLaunch,
  type StartArgs,
} from './launch-policy.js';

const ROOT = '/proj';
const PKG = path.join(ROOT, 'node_modules', 'electron');

function fsWith(files: Record<string, string>): Pick<LaunchEnvironment, 'exists' | 'readText'> {
  return {
    exists: (f) => Object.hasOwn(files, f),
    readText: (f) => {
      if (!Object.hasOwn(files, f)) throw new Error(`ENOENT ${f}`);
      return files[f];
    },
  };
}

const installedNoBinary = { [path.join(PKG, 'package.json')]: '{}' };
const downloaded = {
  ...installedNoBinary,
  [path.join(PKG, 'path.txt')]: 'electron',
  [path.join(PKG, 'dist', 'electron')]: '',
};

function env(
  files: Record<string, string>,
  vars: Record<string, string> = { DISPLAY: ':0' },
  platform: NodeJS.Platform = 'linux',
): LaunchEnvironment {
  return { root: ROOT, env: vars, platform, ...fsWith(files) };
}

const defaults: StartArgs = { noElectron: false, requireElectron: false, port: 0, open: true };

describe('parseStartArgs', () => {
  it('reads the flags npm start passes through', () => {
    expect(parseStartArgs([])).toEqual({ ok: true, args: defaults });
    expect(parseStartArgs(['--no-open', '--port', '8123', '--no-electron'])).toEqual({
      ok: true,
      args: { ...defaults, noElectron: true, open: false, port: 8123 },
    });
    expect(parseStartArgs(['--port=0', '--electron'])).toEqual({
      ok: true,
      args: { ...defaults, requireElectron: true },
    });
  });

  it.each([
    [['--port']],
    [['--port', 'abc']],
    [['--port=70000']],
    [['--bogus']],
    [['--electron', '--no-electron']],
  ])('rejects %j with usage', (argv) => {
    const parsed = parseStartArgs(argv);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain('usage:');
  });
});

describe('findElectronBinary (never loads the electron package, which would download)', () => {
  it('reports a missing package, a missing download and a missing binary', () => {
    expect(findElectronBinary(env({}))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not installed/),
    });
    expect(findElectronBinary(env(installedNoBinary))).toEqual({
      ok: false,
      reason: 'Electron runtime not available (binary not downloaded)',
    });
    const pathOnly = { ...installedNoBinary, [path.join(PKG, 'path.txt')]: 'electron' };
    expect(findElectronBinary(env(pathOnly))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/binary missing/),
    });
  });

  it('finds the downloaded binary from path.txt', () => {
    expect(findElectronBinary(env(downloaded))).toEqual({
      ok: true,
      binary: path.join(PKG, 'dist', 'electron'),
    });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH like the electron package does', () => {
    const files = { ...installedNoBinary, '/opt/electron/electron': '' };
    expect(
      findElectronBinary(env(files, { ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' })),
    ).toEqual({
      ok: true,
      binary: '/opt/electron/electron',
    });
    expect(
      findElectronBinary(env(installedNoBinary, { ELECTRON_OVERRIDE_DIST_PATH: '/nowhere' })).ok,
    ).toBe(false);
  });
});

describe('displayProblem', () => {
  it('needs X11 or Wayland on Linux only', () => {
    expect(displayProblem({ env: {}, platform: 'linux' })).toMatch(/no display/);
    expect(displayProblem({ env: { DISPLAY: ':1' }, platform: 'linux' })).toBeNull();
    expect(displayProblem({ env: { WAYLAND_DISPLAY: 'wayland-0' }, platform: 'linux' })).toBeNull();
    expect(displayProblem({ env: {}, platform: 'darwin' })).toBeNull();
    expect(displayProblem({ env: {}, platform: 'win32' })).toBeNull();
  });
});

describe('planLaunch', () => {
  it('launches Electron when the binary and a display are there', () => {
    expect(planLaunch(defaults, env(downloaded))).toEqual({
      mode: 'electron',
      binary: path.join(PKG, 'dist', 'electron'),
    });
  });

  it('falls back to browser mode with one reason', () => {
    expect(planLaunch(defaults, env(installedNoBinary))).toEqual({
      mode: 'browser',
      reason: 'Electron runtime not available (binary not downloaded)',
    });
    expect(planLaunch(defaults, env(downloaded, {}))).toEqual({
      mode: 'browser',
      reason: 'Electron cannot open a window: no display (DISPLAY and WAYLAND_DISPLAY are unset)',
    });
  });

  it('goes straight to browser mode with --no-electron, without a reason line', () => {
    expect(planLaunch({ ...defaults, noElectron: true }, env(downloaded))).toEqual({
      mode: 'browser',
      reason: null,
    });
  });

  it('fails instead of falling back with --electron', () => {
    expect(
      planLaunch({ ...defaults, requireElectron: true }, env(installedNoBinary)),
    ).toMatchObject({ mode: 'fail' });
  });

  it('prints the fallback as one line', () => {
    const line = fallbackLine('Electron runtime not available (binary not downloaded)');
    expect(line).toBe(
      'Electron runtime not available (binary not downloaded); starting browser mode instead',
    );
    expect(line).not.toContain('\n');
  });
});

describe('electronChildEnv', () => {
  it('drops ELECTRON_RUN_AS_NODE so the app starts as an app', () => {
    expect(electronChildEnv({ PATH: '/bin', ELECTRON_RUN_AS_NODE: '1', EMPTY: undefined })).toEqual(
      { PATH: '/bin' },
    );
  });
});
