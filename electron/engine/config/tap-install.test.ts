import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtPaths } from '../../paths.js';
import {
  defaultTapLauncher,
  manifestPathOf,
  TapConfigError,
  tapInstall,
  tapUninstall,
} from './tap-install.js';

const FIXTURES = new URL('../../../test/fixtures/configs/tap/', import.meta.url);
let dir: string;
let file: string;
let original: Buffer;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pipescope-tap-'));
  file = path.join(dir, 'claude_desktop_config.json');
  cpSync(new URL('claude_desktop_config.json', FIXTURES), file);
  original = readFileSync(file);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const backups = (): string[] => readdirSync(dir).filter((f) => f.includes('.pipescope-backup-'));

describe('tapInstall / tapUninstall', () => {
  it('uses this Node and this package’s bin by default', async () => {
    expect(defaultTapLauncher()).toEqual({ node: process.execPath, bin: builtPaths.cliBin() });
    expect(existsSync(builtPaths.cliBin())).toBe(true);
    const r = await tapInstall({ config: file, servers: ['sqlite'] });
    const value = JSON.parse(readFileSync(file, 'utf8'));
    expect(value.mcpServers.sqlite.command).toBe(process.execPath);
    expect(value.mcpServers.sqlite.args.slice(0, 2)).toEqual([builtPaths.cliBin(), 'tap']);
    expect(r).toMatchObject({ action: 'install', changed: true, manifest: manifestPathOf(file) });
  });

  it('installs in steps, each with its own backup, and uninstalls back to the original bytes', async () => {
    const a = await tapInstall({ config: file, servers: ['github'] });
    const b = await tapInstall({ config: file, servers: ['filesystem', 'sqlite'] });
    expect(a.backup).not.toBe(b.backup);
    expect(readFileSync(a.backup as string)).toEqual(original);
    expect(backups()).toHaveLength(2);
    const manifest = JSON.parse(readFileSync(manifestPathOf(file), 'utf8'));
    expect(manifest).toMatchObject({ format: 'pipescope-tap-manifest', version: 1, config: file });
    expect(manifest.entries.map((e: { path: string[] }) => e.path[1])).toEqual([
      'github',
      'filesystem',
      'sqlite',
    ]);
    const back = await tapUninstall({ config: file });
    expect(back.servers.every((s) => s.exact)).toBe(true);
    expect(readFileSync(file)).toEqual(original);
    expect(back.manifest).toBeNull();
    expect(existsSync(manifestPathOf(file))).toBe(false);
  });

  it('writes nothing, not even a backup, when nothing changes', async () => {
    await tapInstall({ config: file });
    const after = readFileSync(file);
    const again = await tapInstall({ config: file });
    expect(again).toMatchObject({ changed: false, backup: null, restart: null });
    expect(readFileSync(file)).toEqual(after);
    expect(backups()).toHaveLength(1);
    await tapUninstall({ config: file });
    const none = await tapUninstall({ config: file });
    expect(none).toMatchObject({ changed: false, servers: [], backup: null });
    expect(readFileSync(file)).toEqual(original);
  });

  it('edits the file a symlink names, and the symlink stays', async () => {
    const link = path.join(dir, 'link.json');
    symlinkSync(file, link);
    const r = await tapInstall({ config: link });
    expect(r.config).toBe(file);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(link, 'utf8')).toContain('"tap"');
    await tapUninstall({ config: link });
    expect(readFileSync(file)).toEqual(original);
  });

  it('unwraps from the args without a manifest (or with a damaged one), and says so', async () => {
    await tapInstall({ config: file });
    writeFileSync(manifestPathOf(file), '{ not json');
    const r = await tapUninstall({ config: file });
    expect(r.servers.map((s) => [s.status, s.exact])).toEqual([
      ['unwrapped', false],
      ['unwrapped', false],
      ['unwrapped', false],
    ]);
    expect(r.servers[0].reason).toMatch(/no record of it in the manifest/);
    const value = JSON.parse(readFileSync(file, 'utf8'));
    expect(value).toEqual({
      ...JSON.parse(original.toString()),
      mcpServers: {
        ...JSON.parse(original.toString()).mcpServers,
        sqlite: { command: 'uvx', args: [] },
      },
    });
  });

  it('keeps the manifest entries of servers it had to leave tapped', async () => {
    await tapInstall({ config: file });
    const text = readFileSync(file, 'utf8');
    // Hand-edit github's wrapped args so that no command follows `--` any more.
    writeFileSync(
      file,
      text.replace(/"--", "npx", "-y", "@modelcontextprotocol\/server-github"/, '"--"'),
    );
    const r = await tapUninstall({ config: file });
    expect(r.servers.find((s) => s.name === 'github')).toMatchObject({ status: 'left-tapped' });
    expect(r.manifest).toBe(manifestPathOf(file));
    const kept = JSON.parse(readFileSync(manifestPathOf(file), 'utf8')).entries;
    expect(kept.map((e: { path: string[] }) => e.path)).toEqual([['mcpServers', 'github']]);
  });
});

describe('what it refuses (TapConfigError, nothing written)', () => {
  const refuses = async (p: Promise<unknown>, message: RegExp): Promise<void> => {
    await expect(p).rejects.toThrow(TapConfigError);
    await expect(p).rejects.toThrow(message);
    expect(readFileSync(file)).toEqual(original);
    expect(backups()).toEqual([]);
  };

  it('files that are not UTF-8, not regular, or not there', async () => {
    const utf16 = path.join(dir, 'utf16.json');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{}', 'utf16le')]));
    await refuses(tapInstall({ config: utf16 }), /is not UTF-8 text/);
    await refuses(tapInstall({ config: dir }), /is not a regular file/);
    await refuses(tapInstall({ config: path.join(dir, 'nope.json') }), /no such file/);
    if (process.platform !== 'win32') {
      const fifo = path.join(dir, 'fifo.json');
      spawnSync('mkfifo', [fifo]);
      await refuses(tapInstall({ config: fifo }), /is not a regular file/);
    }
  });

  it('a launcher that is not absolute or a bin that is not there', async () => {
    await refuses(
      tapInstall({ config: file, launcher: { node: 'node', bin: '/x/pipescope.js' } }),
      /absolute/,
    );
    const front = { node: '/n', bin: '/x/pipescope.js', front: 'pipescope-relay' };
    await refuses(tapInstall({ config: file, launcher: front }), /absolute.*the relay in front/);
    await refuses(
      tapInstall({ config: file, launcher: { node: '/n', bin: path.join(dir, 'pipescope.js') } }),
      /the pipescope command is not at/,
    );
  });

  it('an unknown server', async () => {
    await refuses(tapInstall({ config: file, servers: ['nope'] }), /no server named "nope"/);
  });
});
