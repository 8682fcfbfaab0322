// The tap channels of the start screen: on a config discovery finds in a temporary HOME, a dry
// run, the install (backup, restart line, the Node the entries run), discovery counting the
// tapped entries, and the uninstall back to the original bytes; and the refusals (a path
// discovery does not find, an unknown server, an oversized path, no usable Node under Electron).
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChannelRequest,
  type ChannelResponses,
  type HostChannel,
  parseHostCall,
} from '../../../../shared/host-api.js';
import type { Result } from '../../../../shared/result.js';
import { builtPaths } from '../../../paths.js';
import type { DiscoverOptions } from '../../config/discovery.js';
import { HandlerRegistry } from '../handler-registry.js';
import { type AppTapLauncher, appTapLauncher, nodeOnPath } from '../tap-launcher.js';
import { type ConfigHandlerOptions, registerConfigHandlers } from './config.js';

const FIXTURE = new URL(
  '../../../../test/fixtures/configs/tap/claude_desktop_config.json',
  import.meta.url,
);

let root: string;
let home: string;
let file: string;
let original: Buffer;
let discover: DiscoverOptions;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'pipescope-tap-handler-'));
  home = path.join(root, 'home');
  const cwd = path.join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  const dir = path.join(home, '.config', 'Claude');
  mkdirSync(dir, { recursive: true });
  file = path.join(dir, 'claude_desktop_config.json');
  cpSync(FIXTURE, file);
  original = readFileSync(file);
  discover = { home, cwd, platform: 'linux', env: {} };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function handlers(o: ConfigHandlerOptions = {}) {
  const on = new HandlerRegistry();
  registerConfigHandlers(on, { discover, ...o });
  return async <C extends HostChannel>(
    channel: C,
    payload: ChannelRequest<C>,
  ): Promise<Result<ChannelResponses[C]>> => {
    const call = parseHostCall(channel, payload);
    if (!call.ok) return call;
    return (await on.dispatch(call.value)) as Result<ChannelResponses[C]>;
  };
}

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

const backups = (): string[] =>
  readdirSync(path.dirname(file)).filter((f) => f.includes('.pipescope-backup-'));

describe('config:tap-install / config:tap-uninstall', () => {
  it('dry-runs, taps, counts the tapped entries and untaps back to the original bytes', async () => {
    const call = handlers();
    const [found] = value(await call('config:discover', {}));
    expect(found).toMatchObject({ path: file, format: 'claude-desktop', error: null });
    expect(found.tapped).toBeUndefined();

    const plan = value(await call('config:tap-install', { path: file, dryRun: true }));
    expect(plan).toMatchObject({ dryRun: true, changed: true, backup: null, restart: null });
    expect(plan.servers.map((s) => [s.name, s.status])).toEqual([
      ['filesystem', 'wrapped'],
      ['github', 'wrapped'],
      ['sqlite', 'wrapped'],
    ]);
    expect(readFileSync(file)).toEqual(original);
    expect(backups()).toEqual([]);

    const done = value(await call('config:tap-install', { path: file, servers: ['github'] }));
    expect(done).toMatchObject({
      action: 'install',
      changed: true,
      host: 'Claude Desktop',
      restart: 'Restart Claude Desktop for the change to take effect.',
      // Plain Node (vitest): the entries run this Node, nothing to explain.
      launcher: { node: process.execPath, bin: builtPaths.cliBin(), note: null },
    });
    expect(done.servers).toEqual([{ name: 'github', location: 'mcpServers', status: 'wrapped' }]);
    expect(readFileSync(done.backup as string)).toEqual(original);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.mcpServers.github.command).toBe(process.execPath);
    expect(written.mcpServers.github.args.slice(0, 2)).toEqual([builtPaths.cliBin(), 'tap']);

    const [after] = value(await call('config:discover', {}));
    expect(after.tapped).toBe(1);

    const again = value(await call('config:tap-install', { path: file }));
    expect(again.servers.find((s) => s.name === 'github')?.status).toBe('already-tapped');
    expect(value(await call('config:discover', {}))[0].tapped).toBe(3);

    const preview = value(await call('config:tap-uninstall', { path: file, dryRun: true }));
    expect(preview).toMatchObject({ dryRun: true, changed: true, backup: null, launcher: null });
    expect(preview.servers.every((s) => s.status === 'unwrapped')).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.sqlite.args[1]).toBe('tap');

    const back = value(await call('config:tap-uninstall', { path: file }));
    expect(back).toMatchObject({
      action: 'uninstall',
      changed: true,
      manifest: null,
      restart: 'Restart Claude Desktop for the change to take effect.',
    });
    expect(back.servers.every((s) => s.status === 'unwrapped' && s.exact)).toBe(true);
    expect(readFileSync(file)).toEqual(original);
    expect(value(await call('config:discover', {}))[0].tapped).toBeUndefined();
  });

  it('refuses a path discovery does not find, and writes nothing there', async () => {
    const call = handlers();
    const elsewhere = path.join(root, 'claude_desktop_config.json');
    cpSync(FIXTURE, elsewhere);
    // The same file by another spelling is refused too: the path must be discovery's own.
    const dotted = `${path.dirname(file)}/../Claude/${path.basename(file)}`;
    for (const p of [elsewhere, dotted, path.join(root, 'passwd'), '/etc/passwd']) {
      const r = await call('config:tap-install', { path: p });
      expect(r.ok ? 'ok' : r.error.code, p).toBe('ENOTDISCOVERED');
      const u = await call('config:tap-uninstall', { path: p });
      expect(u.ok ? 'ok' : u.error.code, p).toBe('ENOTDISCOVERED');
    }
    expect(readFileSync(elsewhere)).toEqual(original);
    expect(readdirSync(root).sort()).toEqual(['claude_desktop_config.json', 'home', 'project']);
    expect(readFileSync(file)).toEqual(original);
  });

  it('answers ETAPCONFIG for what tap install refuses, EINVAL for a payload out of bounds', async () => {
    const call = handlers();
    const r = await call('config:tap-install', { path: file, servers: ['nope'] });
    expect(r.ok ? null : r.error).toMatchObject({
      code: 'ETAPCONFIG',
      message: expect.stringMatching(/no server named "nope"/),
    });
    writeFileSync(file, '{ "mcpServers": ');
    const bad = await call('config:tap-uninstall', { path: file });
    expect(bad.ok ? null : bad.error.code).toBe('ETAPCONFIG');
    const long = await call('config:tap-install', { path: `/${'a'.repeat(5000)}` });
    expect(long.ok ? null : long.error.code).toBe('EINVAL');
    const empty = await call('config:tap-install', { path: file, servers: [''] });
    expect(empty.ok ? null : empty.error.code).toBe('EINVAL');
  });

  it('with the relay in front, writes it first and says so in its result', async () => {
    const front = path.join(root, 'pipescope-relay');
    const launcher = (): Promise<AppTapLauncher> =>
      Promise.resolve({ node: process.execPath, bin: builtPaths.cliBin(), front, note: null });
    const call = handlers({ launcher });
    const r = value(await call('config:tap-install', { path: file, servers: ['github'] }));
    expect(r.launcher).toEqual({
      node: process.execPath,
      bin: builtPaths.cliBin(),
      front,
      note: null,
    });
    const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers.github;
    expect([entry.command, ...entry.args.slice(0, 4)]).toEqual([
      front,
      'node',
      process.execPath,
      builtPaths.cliBin(),
      'tap',
    ]);
  });

  it('runs one write at a time', async () => {
    const call = handlers();
    const [a, b] = await Promise.all([
      call('config:tap-install', { path: file, servers: ['github'] }),
      call('config:tap-install', { path: file, servers: ['sqlite'] }),
    ]);
    expect(a.ok && b.ok).toBe(true);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.mcpServers.github.args[1]).toBe('tap');
    expect(written.mcpServers.sqlite.args[1]).toBe('tap');
    expect(backups()).toHaveLength(2);
  });
});

describe('the Node a tapped entry runs under Electron', () => {
  let bin: string;
  beforeEach(() => {
    bin = path.join(root, 'bin');
    mkdirSync(bin);
  });

  function fakeNode(dir: string): string {
    const node = path.join(dir, 'node');
    writeFileSync(node, '#!/bin/sh\necho v22.1.0\n');
    chmodSync(node, 0o755);
    return node;
  }

  it('is the node on PATH, and the result says so', async () => {
    const node = fakeNode(bin);
    expect(await nodeOnPath(`relative/dir:${path.join(root, 'none')}:${bin}`, 'linux')).toBe(node);
    const launcher = (): Promise<AppTapLauncher> =>
      appTapLauncher({ electron: '45.5.0', pathVar: `/nonexistent:${bin}` });
    const call = handlers({ launcher });
    const r = value(await call('config:tap-install', { path: file, servers: ['sqlite'] }));
    expect(r.launcher).toMatchObject({ node, bin: builtPaths.cliBin() });
    expect(r.launcher?.note).toMatch(/Electron.*node on PATH: .*bin\/node \(v22\.1\.0\)/);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.sqlite.command).toBe(node);
  });

  it('refuses without a node on PATH, or with one too old, and writes nothing', async () => {
    const none = handlers({ launcher: () => appTapLauncher({ electron: '45', pathVar: bin }) });
    const r = await none('config:tap-install', { path: file });
    expect(r.ok ? null : r.error).toMatchObject({
      code: 'ETAPCONFIG',
      message: expect.stringMatching(/no `node` on PATH/),
    });
    fakeNode(bin);
    const old = handlers({
      launcher: () =>
        appTapLauncher({ electron: '45', pathVar: bin, version: async () => 'v18.20.0' }),
    });
    const o = await old('config:tap-install', { path: file });
    expect(o.ok ? null : o.error.message).toMatch(/is v18\.20\.0: pipescope needs Node 20\.19/);
    expect(readFileSync(file)).toEqual(original);
    expect(existsSync(`${file}.pipescope-tap.json`)).toBe(false);
  });
});
