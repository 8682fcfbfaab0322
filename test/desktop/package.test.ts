/**
 * The installer's payload, built for real: electron-builder packs the Linux `dir` target from
 * electron-builder.yml against a stand-in Electron distribution (pack.ts: the real runtime cannot
 * be downloaded here), once for this file, with every download refused by a local trap. Then
 * app.asar is read with @electron/asar and checked for what a user's install needs, where the
 * code looks for it, what it must not carry, and its size; the fuse wire electron-builder
 * flipped is read back with @electron/fuses; and the packed app itself is run under the
 * Electron double from an install laid out as Electron reads one.
 *
 * AppImage and deb are not built: their tools (appimagetool, fpm) come from GitHub releases,
 * and neither is packaged in Debian; the trap shows electron-builder reaching for them.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { getConfig } from 'app-builder-lib/out/util/config/config.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '../../electron/demo-servers/catalog.js';
import { IPC_CHANNELS } from '../../shared/bridge-protocol.js';
import type { HostApi } from '../../shared/host-api.js';
import type { Result } from '../../shared/result.js';
import type { SessionInfo } from '../../shared/session-info.js';
import { running } from '../fixtures/processes.js';
import {
  type AsarEntry,
  answersInitialize,
  asarEntries,
  extractInstall,
  relativeClosure,
} from './asar-contents.js';
import {
  downloadTrap,
  ELECTRON_DEFAULT_FUSES,
  ELECTRON_VERSION,
  makeStandInElectron,
  type PackRun,
  runElectronBuilder,
  type Trap,
} from './pack.js';
import { runPreload } from './preload-double.js';
import { disposeAll, ROOT, startShell } from './shell-process.js';

/** Renderer-only packages: vite bundles them into dist/renderer; the app must not ship them. */
const RENDERER_ONLY = ['react', 'react-dom', 'recharts', 'zustand'];
const BUDGET = { asarBytes: 8 * 1024 * 1024, entries: 3500, unpackedBytes: 10 * 1024 * 1024 };

const scratch =
  process.env.PIPESCOPE_PACK_DIR ?? mkdtempSync(path.join(tmpdir(), 'pipescope-pack-'));
const standIn = path.join(scratch, 'electron-dist');
const appOut = path.join(scratch, 'out', 'linux-unpacked');
const resources = path.join(appOut, 'resources');
const archive = path.join(resources, 'app.asar');
let trap: Trap;
let run: PackRun;
let entries: AsarEntry[] = [];
const config = await getConfig(ROOT, path.join(ROOT, 'electron-builder.yml'), null);

/** The Linux `dir` target, read through /proc: the project's machines and CI are Linux. */
const LINUX = process.platform === 'linux';

beforeAll(async () => {
  if (!LINUX) return;
  rmSync(path.join(scratch, 'out'), { recursive: true, force: true });
  makeStandInElectron(standIn);
  trap = await downloadTrap();
  run = await runElectronBuilder({
    trap,
    scratch,
    output: path.join(scratch, 'out'),
    overrides: { electronDist: standIn, npmRebuild: 'false' },
  });
  if (existsSync(archive)) entries = asarEntries(archive);
});

afterAll(async () => {
  await trap?.close();
  const files = entries.filter((e) => e.kind === 'file');
  if (run)
    process.stdout.write(
      `desktop pack: ${run?.ms} ms, app.asar ${entries.length} entries (${files.filter((e) => e.unpacked).length} files unpacked), ${existsSync(archive) ? statSync(archive).size : 0} bytes\n`,
    );
  if (!process.env.PIPESCOPE_PACK_DIR) rmSync(scratch, { recursive: true, force: true });
});

afterEach(disposeAll);

const files = () => new Map(entries.filter((e) => e.kind === 'file').map((e) => [e.path, e]));
const tail = (text: string) => text.split('\n').slice(-25).join('\n');

describe.skipIf(!LINUX)('electron-builder packs the dir target against a stand-in Electron', () => {
  it('packs without downloading anything', () => {
    expect(run.stopped, tail(run.log)).toBeNull();
    expect(run.code, tail(run.log)).toBe(0);
    expect(trap.hits, 'download attempts').toEqual([]);
    expect(run.log).toContain('using custom unpacked Electron distribution');
    const exe = path.join(appOut, 'pipescope');
    expect(statSync(exe).mode & 0o111, 'the executable keeps its x bits').not.toBe(0);
    expect(existsSync(path.join(appOut, 'LICENSE.electron.txt'))).toBe(true);
    expect(existsSync(archive)).toBe(true);
  });

  it('a pack that would download stops at once on the trap instead of hanging', async () => {
    const second = await downloadTrap();
    try {
      const r = await runElectronBuilder({
        trap: second,
        scratch,
        output: path.join(scratch, 'out-download'),
        overrides: { npmRebuild: 'false' },
        deadlineMs: 90_000,
      });
      expect(r.stopped).toMatch(/tried to download/);
      expect(second.hits[0]).toContain(`electron-v${ELECTRON_VERSION}-linux-x64.zip`);
    } finally {
      await second.close();
    }
  });
});

describe.skipIf(!LINUX)('app.asar', () => {
  it('holds main, preload, renderer, worker, the wasm scanner, the demo servers and their catalog', () => {
    const have = files();
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const html = readFileSync(path.join(ROOT, 'dist/renderer/index.html'), 'utf8');
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map(
      (m) => `dist/renderer/${m[1]}`,
    );
    const needed = [
      'package.json',
      pkg.main,
      'dist/electron/paths.js',
      'dist/preload/preload.cjs',
      'dist/renderer/index.html',
      ...assets,
      'dist/electron/worker/entry.js',
      'dist/electron/worker/audit-entry.js',
      'dist/electron/worker/read/json-scan.wasm',
      'dist/electron/demo-servers/catalog.js',
      ...DEMO_CATALOG.map((d) => `dist/electron/demo-servers/${d.id}.js`),
      'assets/icon.png',
    ];
    expect(assets.length).toBeGreaterThanOrEqual(2);
    expect(needed.filter((f) => !have.has(f))).toEqual([]);
    expect(readdirSync(resources).sort()).toEqual(['app.asar', 'app.asar.unpacked']);
  });

  it('unpacks what runs as a real file, each file where the archive says, every pattern used', () => {
    const unpackedDir = `${archive}.unpacked`;
    const unpacked = [...files().values()].filter((e) => e.unpacked);
    for (const f of [
      'dist/electron/worker/entry.js',
      'dist/electron/worker/audit-entry.js',
      'dist/electron/worker/read/json-scan.wasm',
      ...DEMO_CATALOG.map((d) => `dist/electron/demo-servers/${d.id}.js`),
    ])
      expect(files().get(f)?.unpacked, `${f} is unpacked`).toBe(true);
    const wrong = unpacked.filter(
      (e) => statSync(path.join(unpackedDir, e.path), { throwIfNoEntry: false })?.size !== e.size,
    );
    expect(wrong.map((e) => e.path)).toEqual([]);
    const onDisk = (readdirSync(unpackedDir, { recursive: true }) as string[]).filter((p) =>
      statSync(path.join(unpackedDir, p)).isFile(),
    );
    expect(onDisk.length).toBe(unpacked.length);
    for (const pattern of config.asarUnpack as string[]) {
      const prefix = pattern.slice(0, -'**'.length);
      expect(
        unpacked.some((e) => e.path.startsWith(prefix)),
        `${pattern} matches a file`,
      ).toBe(true);
    }
  });

  it('each demo server runs from app.asar.unpacked alone and answers initialize', async () => {
    const dir = path.join(`${archive}.unpacked`, 'dist/electron/demo-servers');
    const problems: string[] = [];
    // A few at a time: each loads the MCP SDK, and the machine has two cores.
    for (let i = 0; i < DEMO_CATALOG.length; i += 6) {
      const batch = DEMO_CATALOG.slice(i, i + 6).map((d) =>
        answersInitialize(path.join(dir, `${d.id}.js`)),
      );
      for (const problem of await Promise.all(batch)) if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  it('carries no tests, source maps, declarations, TypeScript sources or build leftovers', () => {
    const bad = entries
      .filter((e) => e.kind === 'file')
      .map((e) => e.path)
      .filter((p) =>
        /\.map$|\.[cm]?tsx?$|\.test\.|\.spec\.|\/__tests__\/|\.tsbuildinfo$|\.build-stamps\.json$/.test(
          p,
        ),
      );
    expect(bad).toEqual([]);
    expect(
      entries
        .filter((e) => !e.path.includes('/'))
        .map((e) => e.path)
        .sort(),
    ).toEqual(['assets', 'dist', 'node_modules', 'package.json']);
    expect(entries.filter((e) => e.path.startsWith('dist/.')).map((e) => e.path)).toEqual([]);
  });

  it('ships no renderer-only package, and only production packages of the lock file', () => {
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    const nameOf = (p: string) => p.replace(/^(.*\/)?node_modules\//, '');
    // By name: electron-builder's collector may nest a copy where npm hoisted it.
    const production = new Set(
      Object.entries(lock.packages as Record<string, { dev?: boolean }>)
        .filter(([p, info]) => p.startsWith('node_modules/') && !info.dev)
        .map(([p]) => nameOf(p)),
    );
    const shipped = entries
      .filter(
        (e) => e.kind === 'dir' && /^(.*\/)?node_modules\/(@[^/]+\/)?[^@/][^/]*$/.test(e.path),
      )
      .map((e) => nameOf(e.path));
    expect(shipped.length).toBeGreaterThan(0);
    expect(shipped.filter((name) => RENDERER_ONLY.includes(name))).toEqual([]);
    expect(
      shipped.filter((name) => !production.has(name)),
      'packed packages that are dev-only',
    ).toEqual([]);
  });

  it('ships only JavaScript something loads: main, the preload, the worker threads, the demo servers', () => {
    const app = extractInstall(resources, path.join(scratch, 'install-closure'));
    const root = path.join(app, 'app.asar');
    const entryPoints = [
      'dist/electron/main/main.js',
      'dist/electron/worker/entry.js',
      'dist/electron/worker/audit-entry.js',
      ...DEMO_CATALOG.map((d) => `dist/electron/demo-servers/${d.id}.js`),
    ].map((f) => path.join(root, f));
    const { files: reached, missing } = relativeClosure(entryPoints);
    expect(missing).toEqual([]);
    const unused = entries.filter(
      (e) =>
        e.kind === 'file' &&
        e.path.startsWith('dist/electron/') &&
        e.path.endsWith('.js') &&
        !reached.has(path.join(root, e.path)),
    );
    // What is left (browser mode's server, `pipescope start`'s launcher, type-only modules)
    // is small; a whole folder nothing loads is not (electron-builder.yml excludes them).
    const bytes = unused.reduce((n, e) => n + e.size, 0);
    expect(
      bytes,
      `packed modules nothing loads: ${unused.map((e) => e.path).join(', ')}`,
    ).toBeLessThanOrEqual(64 * 1024);
    for (const folder of ['cli', 'tap', 'preload'])
      expect(
        entries.some((e) => e.path.startsWith(`dist/electron/${folder}/`)),
        folder,
      ).toBe(false);
  });

  it('fits its size budget', () => {
    const unpackedBytes = [...files().values()]
      .filter((e) => e.unpacked)
      .reduce((n, e) => n + e.size, 0);
    const size = statSync(archive).size;
    expect(size, `app.asar is ${size} bytes`).toBeLessThanOrEqual(BUDGET.asarBytes);
    expect(entries.length).toBeLessThanOrEqual(BUDGET.entries);
    expect(unpackedBytes).toBeLessThanOrEqual(BUDGET.unpackedBytes);
  });
});

describe.skipIf(!LINUX)('fuses', () => {
  it('the wire electron-builder flipped says what electron-builder.yml and build/FUSES.md say', async () => {
    const name = (i: number) => FuseV1Options[i] as string;
    const read = async (file: string) => {
      const wire = await getCurrentFuseWire(file);
      const out: Record<string, boolean> = {};
      for (const [k, v] of Object.entries(wire))
        if (k !== 'version') out[name(Number(k))] = v === 49;
      return out;
    };
    const before = await read(path.join(standIn, 'electron'));
    const after = await read(path.join(appOut, 'pipescope'));
    expect(
      Object.values(before)
        .map((on) => (on ? '1' : '0'))
        .join(''),
    ).toBe(ELECTRON_DEFAULT_FUSES);
    const wanted = config.electronFuses as Record<string, boolean>;
    for (const [key, on] of Object.entries(wanted)) {
      const fuse = key[0].toUpperCase() + key.slice(1);
      expect(after[fuse], fuse).toBe(on);
    }
    // build/FUSES.md's table, row by row.
    const doc = readFileSync(path.join(ROOT, 'build/FUSES.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `(\w+)` \| (?:\*\*)?(on|off)/gm)].map(
      (m) => [m[1], m[2] === 'on'] as const,
    );
    expect(rows.length).toBe(Object.keys(after).length);
    for (const [fuse, on] of rows) expect(after[fuse], `${fuse} in build/FUSES.md`).toBe(on);
    // The flip happened: Electron's defaults differ from ours on these.
    expect(before.EnableNodeOptionsEnvironmentVariable).toBe(true);
    expect(after.EnableNodeOptionsEnvironmentVariable).toBe(false);
  });
});

describe.skipIf(!LINUX)('the packed app runs (under the Electron double)', () => {
  it('main from app.asar, the worker and a demo server from app.asar.unpacked; quit leaves nothing', async () => {
    const app = extractInstall(resources, path.join(scratch, 'install'));
    const shell = await startShell({
      main: path.join(app, 'app.asar/dist/electron/main/main.js'),
      appPath: path.join(app, 'app.asar'),
      packaged: true,
    });
    const s = await shell.state();
    expect(s.unknown).toEqual([]);
    const prefs = s.windows[0].options.webPreferences;
    expect(prefs.devTools).toBe(false);
    expect(prefs.preload).toBe(path.join(app, 'app.asar/dist/preload/preload.cjs'));
    const labels = JSON.stringify(s.menu);
    expect(labels).not.toContain('toggleDevTools');
    expect(labels).not.toContain('"reload"');
    const page = runPreload(String(prefs.preload), shell);
    const bridge = page.mainWorld.pipescope as HostApi;
    const started = await bridge.invoke('session:start', { demo: { id: 'healthy' } });
    if (!started.ok) throw new Error(started.error.message);
    expect(started.value.startError).toBeNull();
    const pid = started.value.pid ?? 0;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(argv[1]).toBe(path.join(app, 'app.asar.unpacked/dist/electron/demo-servers/healthy.js'));
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(
      'ELECTRON_RUN_AS_NODE=1',
    );
    await shell.waitForSent(
      (e) =>
        e.channel === IPC_CHANNELS.event &&
        JSON.stringify(e.args).includes('"method":"tools/list"'),
      'the tools/list frame, read by the worker from app.asar.unpacked',
    );
    page.dispose();
    await shell.command('menu-click', { role: 'quit' });
    expect(await shell.waitForExit(20_000)).toEqual({ code: 0, signal: null });
    expect(running(pid)).toBe(false);
    expect(shell.errors).toEqual([]);
  });

  it('a broken install (no worker in app.asar.unpacked) fails the start with its reason, and quits', async () => {
    const app = extractInstall(resources, path.join(scratch, 'install-broken'));
    rmSync(path.join(app, 'app.asar.unpacked/dist/electron/worker/entry.js'));
    const shell = await startShell({
      main: path.join(app, 'app.asar/dist/electron/main/main.js'),
      appPath: path.join(app, 'app.asar'),
      packaged: true,
    });
    const answer = shell.invoke(IPC_CHANNELS.invoke, [
      'session:start',
      { demo: { id: 'healthy' } },
    ]);
    const late = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('session:start did not answer in 15 s')), 15_000).unref(),
    );
    const r = (await Promise.race([answer, late])) as Result<SessionInfo>;
    expect(r.ok && r.value.state).toBe('failed');
    expect(r.ok && r.value.startError).toMatch(
      /transport worker failed: Cannot find module .*app\.asar\.unpacked/,
    );
    await shell.command('menu-click', { role: 'quit' });
    expect(await shell.waitForExit(20_000)).toEqual({ code: 0, signal: null });
  });
});
