/**
 * The Electron shell (the built electron/main/main.js and all it imports) run in plain Node under
 * the Electron double: the window it makes, the app:// protocol serving the built renderer, the
 * URL and permission policy it applies to every web contents, the single-instance lock, and quit
 * stopping every server process. IPC, the preload, the menu and a real session:
 * shell-ipc.test.ts. What a double cannot show (rendering, native menus, the file dialogs) needs
 * the real Electron: README "Troubleshooting".
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers, processTable } from '../fixtures/processes.js';
import {
  BUILT_MAIN,
  disposeAll,
  ROOT,
  ShellProcess,
  type ShellState,
  startShell,
} from './shell-process.js';

afterEach(disposeAll);

const RENDERER = path.join(ROOT, 'dist/renderer');
const ENTRY = 'app://pipescope/index.html';

/** The double's record of misuse: nothing unknown asked, no Electron rule broken, no error. */
function expectClean(s: ShellState, shell: ShellProcess): void {
  expect(s.unknown, 'Electron members the double does not implement').toEqual([]);
  expect(s.misuse, 'Electron rules broken').toEqual([]);
  expect([...s.errors, ...shell.errors], 'uncaught errors in the shell').toEqual([]);
}

describe('start-up', () => {
  it('registers app:// and the sandbox before ready, the rest after, asking nothing unknown', async () => {
    const shell = await startShell();
    const s = await shell.state();
    expectClean(s, shell);
    const when = (api: string) => s.calls.filter((c) => c.api === api).map((c) => c.ready);
    expect(when('protocol.registerSchemesAsPrivileged')).toEqual([false]);
    expect(when('app.enableSandbox')).toEqual([false]);
    expect(s.sandboxEnabled).toBe(true);
    expect(when('app.requestSingleInstanceLock')).toEqual([false]);
    expect(when('protocol.handle')).toEqual([true]);
    expect(when('new BrowserWindow')).toEqual([true]);
    // Standard + secure for a real origin; never bypassCSP or service workers.
    expect(s.privilegedSchemes).toEqual([
      {
        scheme: 'app',
        privileges: {
          standard: true,
          secure: true,
          supportFetchAPI: true,
          corsEnabled: true,
          codeCache: true,
        },
      },
    ]);
    expect(s.protocolSchemes).toEqual(['app']);
    expect(s.sessionHandlers).toEqual({
      permissionRequest: true,
      permissionCheck: true,
      devicePermission: true,
      headersReceived: true,
    });
    // Only main.js loads electron at run time (the layers test says so of the sources).
    expect(s.importers).toEqual([pathToFileURL(BUILT_MAIN).href]);
  });

  it('opens one window: isolated, sandboxed, no Node, web security on, a preload that exists', async () => {
    const shell = await startShell();
    const s = await shell.state();
    expectClean(s, shell);
    expect(s.windows).toHaveLength(1);
    const [win] = s.windows;
    const prefs = win.options.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      devTools: true, // unpackaged: a packaged run has none (shell-package.test.ts)
    });
    const preload = String(prefs.preload);
    expect(path.isAbsolute(preload), `preload ${preload} is absolute`).toBe(true);
    expect(existsSync(preload), `preload ${preload} exists in the build`).toBe(true);
    expect(path.relative(path.join(ROOT, 'dist'), preload)).toBe('preload/preload.cjs');
    // Hidden until ready-to-show, shown once the page loaded from app://.
    expect(win.options.show).toBe(false);
    expect(s.contents[0]).toMatchObject({ kind: 'window', url: ENTRY, windowOpenHandler: true });
    const order = s.calls.map((c) => c.api);
    expect(order.indexOf('BrowserWindow#1.show')).toBeGreaterThan(
      order.indexOf('BrowserWindow#1.loadURL'),
    );
    expect(win.visible).toBe(true);
  });
});

describe('app:// serves the built renderer and nothing else', () => {
  interface Fetched {
    status: number;
    headers: Record<string, string>;
    body: Uint8Array | null;
  }
  const get = (shell: ShellProcess, url: string, extra: Record<string, unknown> = {}) =>
    shell.command<Fetched>('fetch', { url, ...extra });

  it('serves index.html and every asset it names, with the CSP and nosniff', async () => {
    const shell = await startShell();
    const index = await get(shell, ENTRY);
    expect(index.status).toBe(200);
    const same = (body: Uint8Array | null, file: string) =>
      Buffer.from(body ?? []).equals(readFileSync(path.join(RENDERER, file)));
    expect(same(index.body, 'index.html')).toBe(true);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    const html = Buffer.from(index.body ?? []).toString();
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const r = await get(shell, `app://pipescope/${asset}`);
      expect(r.status, asset).toBe(200);
      expect(same(r.body, asset), `${asset}: the built file's bytes`).toBe(true);
      // A module script under nosniff must be served as JavaScript, or Chromium refuses it.
      if (asset.endsWith('.js')) expect(r.headers['content-type']).toMatch(/javascript/);
      if (asset.endsWith('.css')) expect(r.headers['content-type']).toMatch(/^text\/css/);
    }
  });

  it('refuses traversal (plain, encoded, double-encoded, backslashes), absolute paths and other hosts', async () => {
    const shell = await startShell();
    const outside = readFileSync(path.join(ROOT, 'dist/preload/preload.cjs'));
    const refused = [
      'app://pipescope/../preload/preload.cjs',
      'app://pipescope/%2e%2e/preload/preload.cjs',
      'app://pipescope/..%2fpreload%2fpreload.cjs',
      'app://pipescope/%2e%2e%2fpreload%2fpreload.cjs',
      'app://pipescope/%252e%252e/preload/preload.cjs',
      'app://pipescope/..%5cpreload%5cpreload.cjs',
      'app://pipescope/assets/..\\..\\preload\\preload.cjs',
      `app://pipescope/${path.join(ROOT, 'dist/preload/preload.cjs')}`,
      `app://pipescope//${path.join(ROOT, 'package.json')}`,
      'app://pipescope/%00index.html',
      'app://pipescope/.vite/manifest.json',
      'app://evil/index.html',
      'app://pipescope:8080/index.html',
      'app://user@pipescope/index.html',
    ];
    for (const url of refused) {
      // `raw`: the string as is; otherwise a Request, normalized as Chromium would hand it over
      // (which cannot carry credentials at all).
      for (const raw of url.includes('@') ? [true] : [false, true]) {
        const r = await get(shell, url, { raw });
        expect(r.status, `${url}${raw ? ' (raw)' : ''}`).toBe(404);
        expect(Buffer.from(r.body ?? []).equals(outside)).toBe(false);
        expect(r.headers['content-security-policy']).toContain("default-src 'none'");
      }
    }
    expect((await get(shell, ENTRY, { method: 'POST' })).status).toBe(405);
  });
});

describe('every web contents is held to the URL policy', () => {
  it('denies navigation away, redirects, frames, webviews and new windows; https goes to the OS browser', async () => {
    const shell = await startShell();
    // Any web contents, not only the window's: a webview or devtools one gets the same rules.
    const other = await shell.command<number>('create-contents', { kind: 'webview' });
    for (const contents of [1, other]) {
      const nav = (event: string, url: string) =>
        shell.command<{ prevented: boolean }>('navigate', { contents, event, url });
      expect(await nav('will-navigate', 'https://example.com/')).toEqual({ prevented: true });
      expect(await nav('will-navigate', 'file:///etc/passwd')).toEqual({ prevented: true });
      expect(await nav('will-navigate', 'javascript:alert(1)')).toEqual({ prevented: true });
      expect(await nav('will-navigate', 'app://pipescope/index.html#x')).toEqual({
        prevented: false,
      });
      expect(await nav('will-redirect', 'https://example.com/')).toEqual({ prevented: true });
      expect(await nav('will-frame-navigate', 'https://example.com/')).toEqual({ prevented: true });
      expect(await nav('will-attach-webview', 'https://example.com/')).toEqual({ prevented: true });
      for (const url of ['https://example.com/a', 'http://example.com/', 'app://pipescope/x'])
        expect(await shell.command('window-open', { contents, url })).toEqual({ action: 'deny' });
    }
    const s = await shell.state();
    expectClean(s, shell);
    const opened = s.calls.filter((c) => c.api === 'shell.openExternal').map((c) => c.args[0]);
    // Only parsed https URLs reach the OS browser (CVE-2025-6514): never file:, http:, javascript:.
    expect(opened.every((u) => String(u).startsWith('https://'))).toBe(true);
    expect(opened).toContain('https://example.com/a');
    expect(opened).not.toContain('file:///etc/passwd');
  });

  it('denies permission requests and checks, except plain-text clipboard writes from our page', async () => {
    const shell = await startShell();
    const other = await shell.command<number>('create-contents', { kind: 'webview' });
    const request = (contents: number, permission: string) =>
      shell.command('permission-request', { contents, permission });
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal'])
      expect(await request(1, p), p).toBe(false);
    expect(await request(1, 'clipboard-sanitized-write')).toBe(true);
    expect(await request(other, 'clipboard-sanitized-write')).toBe(false);
    const check = (permission: string, origin: string) =>
      shell.command('permission-check', { contents: 1, permission, origin });
    expect(await check('media', 'app://pipescope')).toBe(false);
    expect(await check('clipboard-sanitized-write', 'app://pipescope')).toBe(true);
    expect(await check('clipboard-sanitized-write', 'https://evil.test')).toBe(false);
    expect(await shell.command('device-permission', { origin: 'app://pipescope' })).toBe(false);
    // Any response in the session gets our CSP instead of its own.
    const headers = await shell.command<{ responseHeaders: Record<string, string[]> }>('headers', {
      url: 'https://example.com/',
      responseHeaders: { 'content-security-policy': ['default-src *'], 'x-other': ['1'] },
    });
    expect(headers.responseHeaders['Content-Security-Policy'][0]).toContain("default-src 'none'");
    expect(headers.responseHeaders['content-security-policy']).toBeUndefined();
    expect(headers.responseHeaders['x-other']).toEqual(['1']);
    expectClean(await shell.state(), shell);
  });
});

describe('one instance', () => {
  it('a second instance exits at once and the first restores, shows and focuses its window', async () => {
    const first = await startShell();
    await first.command('minimize');
    const before = (await first.state()).calls.length;
    const second = new ShellProcess({ userData: first.userData });
    expect(await second.waitForExit(30_000)).toEqual({ code: 0, signal: null });
    const s2 = second.finalState;
    expect(s2?.calls.map((c) => c.api)).toContain('app.requestSingleInstanceLock');
    expect(s2?.windows, 'the second instance opens no window').toEqual([]);
    expect(s2?.ipcChannels, 'nor serves IPC').toEqual([]);
    const s = await first.waitForState(
      (st) => st.windows[0].focused && !st.windows[0].minimized,
      'the first window to be focused',
    );
    expect(s.calls.slice(before).map((c) => c.api)).toEqual(
      expect.arrayContaining([
        'BrowserWindow#1.restore',
        'BrowserWindow#1.show',
        'BrowserWindow#1.focus',
      ]),
    );
    expect(s.windows).toHaveLength(1);
    expectClean(s, first);
  });
});

describe('quitting stops every session: no server process is left', () => {
  const ways: [string, (shell: ShellProcess) => Promise<unknown>][] = [
    ['File → Quit', (shell) => shell.command('menu-click', { role: 'quit' })],
    ['closing the last window', (shell) => shell.command('close-window')],
    ['SIGTERM', async (shell) => shell.child.kill('SIGTERM')],
  ];
  it.each(ways)('%s', async (_, quit) => {
    const shell = await startShell();
    const invoke = (channel: string, payload: unknown) =>
      shell.invoke('pipescope:invoke', [channel, payload], { frame: 'main' }) as Promise<{
        ok: boolean;
        value: { id: string; pid: number };
      }>;
    const healthy = await invoke('session:start', { demo: { id: 'healthy' } });
    // Ignores stdin EOF and SIGTERM, and its `sleep 300` holds its stdout: only the ladder's
    // SIGKILL to the group ends them, so nothing but a real stop leaves no process behind.
    const stubborn = await invoke('session:start', {
      demo: { id: 'ignores-sigterm', knobs: { grandchild: 'true' } },
    });
    expect(healthy.ok && stubborn.ok).toBe(true);
    const servers = [healthy.value.pid, stubborn.value.pid];
    const deadline = Date.now() + 10_000;
    while (groupMembers(stubborn.value.pid).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const pids = servers.flatMap((pid) => groupMembers(pid).map((p) => p.pid));
    expect(pids.length, 'two servers and the sleep').toBeGreaterThanOrEqual(3);

    await quit(shell);
    expect(await shell.waitForExit(20_000)).toEqual({ code: 0, signal: null });
    const left = processTable().filter(
      (p) => p.state !== 'Z' && (pids.includes(p.pid) || servers.includes(p.pgrp)),
    );
    expect(left.map((p) => `${p.pid} ${p.args}`)).toEqual([]);
    const calls = shell.finalState?.calls.map((c) => c.api) ?? [];
    // The guard held the first quit, stopped the sessions, then quit again for real.
    expect(calls.filter((a) => a === 'app.quit').length).toBeGreaterThanOrEqual(2);
    expect(shell.finalState?.errors).toEqual([]);
    expect(shell.finalState?.unknown).toEqual([]);
    expect(shell.finalState?.misuse).toEqual([]);
    expect(shell.errors).toEqual([]);
  });
});

describe('the double itself', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const shellOf = (source: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-double-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(path.join(dir, 'main.js'), source);
    return new ShellProcess({ main: path.join(dir, 'main.js'), appPath: dir });
  };

  // The module's name spelled apart: these are shells' sources, not imports of this test (a scan
  // of the repository for real imports of it outside electron/main must not take them for one).
  const fromElectron = `from '${'electr'}${'on'}'`;

  it('records and throws on a member it does not implement, even one the shell swallows', async () => {
    const shell = shellOf(
      [
        `import { app, BrowserWindow } ${fromElectron};`,
        'app.whenReady().then(() => {',
        '  try { app.setBadgeCount(1); } catch {}',
        '  const w = new BrowserWindow({ show: false });',
        '  w.webContents.openDevTools();',
        '});',
      ].join('\n'),
    );
    const s = await shell.waitForState((st) => st.errors.length > 0, 'the unhandled rejection');
    expect(s.unknown).toEqual(['app.setBadgeCount', 'webContents#1.openDevTools']);
    expect(s.errors[0]).toContain('webContents#1.openDevTools is not implemented');
  });

  it('fails to load a shell that imports what it does not provide, or breaks an Electron rule', async () => {
    const missing = shellOf(
      `import { autoUpdater } ${fromElectron};\nautoUpdater.checkForUpdates();`,
    );
    expect((await missing.waitForExit()).code).toBe(70);
    expect(missing.errors.join('\n')).toMatch(/does not provide an export named 'autoUpdater'/);
    const late = shellOf(
      `import { app, protocol } ${fromElectron};\napp.whenReady().then(() => protocol.registerSchemesAsPrivileged([]));`,
    );
    const s = await late.waitForState((st) => st.misuse.length > 0, 'the misuse');
    expect(s.misuse).toEqual(['registerSchemesAsPrivileged must be called before ready']);
  });
});
