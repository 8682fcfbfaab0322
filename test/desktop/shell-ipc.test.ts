/**
 * The shell's IPC under the Electron double, from the page's side: the real built preload runs
 * against a stand-in contextBridge / ipcRenderer wired to the shell process (preload-double.ts),
 * so each call here goes window.pipescope → ipcRenderer → the shell's ipcMain handler → the real
 * SessionManager, and each event comes back through webContents.send. Checked: the one narrow
 * bridge, every HostApi channel reaching exactly one handler, calls from foreign frames refused,
 * the menu reaching the same host calls as the UI (through the renderer's own menu handler and
 * store), and a real demo session whose frames arrive as events.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMenuEvents } from '../../renderer/app/menu-actions.js';
import { createElectronHost } from '../../renderer/host/electron-host.js';
import { createAppStore } from '../../renderer/store/store.js';
import { IPC_CHANNELS } from '../../shared/bridge-protocol.js';
import { HOST_CHANNELS, type HostApi, type HostEvent } from '../../shared/host-api.js';
import type { Result } from '../../shared/result.js';
import type { SessionInfo } from '../../shared/session-info.js';
import { running } from '../fixtures/processes.js';
import { type PreloadRun, runPreload } from './preload-double.js';
import { disposeAll, ROOT, type ShellProcess, startShell } from './shell-process.js';

let shell: ShellProcess;
let page: PreloadRun;
let bridge: HostApi;
let scratch: string;

beforeEach(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'pipescope-ipc-'));
  shell = await startShell();
  const s = await shell.state();
  // The page runs the preload its window names (a wrong path fails here, as in Electron).
  page = runPreload(String(s.windows[0].options.webPreferences.preload), shell);
  bridge = page.mainWorld.pipescope as HostApi;
});

afterEach(async () => {
  let s: Awaited<ReturnType<ShellProcess['state']>> | null = null;
  try {
    page?.dispose();
    s = shell.running ? await shell.state() : shell.finalState;
  } finally {
    await disposeAll();
    rmSync(scratch, { recursive: true, force: true });
  }
  expect(s?.unknown, 'Electron members the double does not implement').toEqual([]);
  expect(s?.misuse, 'Electron rules broken').toEqual([]);
  expect(page.unknown, 'electron members the preload asked for').toEqual([]);
  expect(shell.errors, 'uncaught errors in the shell').toEqual([]);
});

/** Any channel by name (the samples below are data: every channel, untyped on purpose). */
function invokeByName(channel: string, payload: unknown): Promise<Result<unknown>> {
  // HostApi.invoke is typed per channel; this test walks all of them from a table.
  const untyped = bridge as unknown as { invoke(c: string, p: unknown): Promise<Result<unknown>> };
  return untyped.invoke(channel, payload);
}

/** A valid payload for every HostApi channel, aimed where it does no harm. */
const SAMPLES: Record<string, unknown> = {
  'demo:list': {},
  'session:list': {},
  'session:start': { demo: { id: 'no-such-demo' } },
  'session:stop': { sessionId: 'nope' },
  'session:close': { sessionId: 'nope' },
  'session:close-many': { sessionIds: ['nope'] },
  'session:config': { sessionId: 'nope' },
  'session:restart': { sessionId: 'nope' },
  'session:recover': { sessionId: 'nope' },
  'session:set-reader-mode': { sessionId: 'nope', mode: 'drain' },
  'session:set-consumer-delay': { sessionId: 'nope', ms: 0 },
  'session:set-limits': { sessionId: 'nope' },
  'request:call-tool': { sessionId: 'nope', name: 'echo' },
  'request:send': { sessionId: 'nope', method: 'ping' },
  'request:ping': { sessionId: 'nope' },
  'request:cancel': { sessionId: 'nope', requestId: 1 },
  'request:replay': { sessionId: 'nope', requestId: 1 },
  'frame:page': { sessionId: 'nope', seq: 1, offset: 0, length: 1 },
  'frame:search': { sessionId: 'nope', searchId: 's1', query: 'x' },
  'frame:find': { sessionId: 'nope', seq: 1, query: 'x' },
  'config:import': { text: '{"mcpServers":{}}' },
  'config:discover': {},
  'config:tap-install': { path: '/nonexistent/config.json', dryRun: true },
  'config:tap-uninstall': { path: '/nonexistent/config.json', dryRun: true },
  'attach:list': {},
  'attach:run': { pid: 2_147_483_000, watchMs: 500 },
  'tap:dump': { sessionId: 'nope' },
  'session:record': { sessionId: 'nope', record: false },
  'trace:open': { path: '/nonexistent/trace.jsonl' },
  'trace:upload': { uploadId: 'abcdefgh', seq: 3, text: '', done: false },
  'trace:seek': { traceId: 'nope', t: 0 },
  'trace:replay': { traceId: 'nope', command: 'true' },
  'trace:export': { traceId: 'nope', format: 'md' },
};

describe('the preload', () => {
  it('exposes exactly one narrow object, window.pipescope, and requires only electron', () => {
    expect(page.required).toEqual(['electron']);
    expect(page.exposed.map(([key]) => key)).toEqual(['pipescope']);
    const api = page.exposed[0][1] as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual(['invoke', 'kind', 'subscribe']);
    expect(api.kind).toBe('electron');
    expect(typeof api.invoke).toBe('function');
    // Nothing of Electron's rides along (ipcRenderer, contextBridge or their methods).
    for (const value of Object.values(api)) expect(typeof value === 'object' && value).toBeFalsy();
    expect(Object.keys(page.mainWorld)).toEqual(['pipescope']);
  });

  it('maps every call to the one invoke channel, refuses non-string channels, and unsubscribes', async () => {
    page.ipc.length = 0;
    await bridge.invoke('demo:list', {});
    expect(page.ipc).toEqual([['invoke', IPC_CHANNELS.invoke, 'demo:list', {}]]);
    for (const bad of [42, null, undefined, '', { toString: () => 'demo:list' }]) {
      const r = await bridge.invoke(bad as 'demo:list', {});
      expect(r).toMatchObject({ ok: false, error: { code: 'EBADCHANNEL' } });
    }
    expect(page.ipc).toHaveLength(1);
    const seen: HostEvent[] = [];
    const off = bridge.subscribe((e) => seen.push(e));
    expect(page.ipc.at(-1)).toEqual(['on', IPC_CHANNELS.event]);
    off();
    expect(page.ipc.at(-1)).toEqual(['removeListener', IPC_CHANNELS.event]);
    expect(page.listeners.get(IPC_CHANNELS.event)?.size).toBe(0);
  });
});

describe('IPC handlers', () => {
  it('main serves exactly one IPC channel, and every HostApi channel reaches its handler', async () => {
    const s = await shell.state();
    expect(s.ipcChannels).toEqual([IPC_CHANNELS.invoke]);
    expect(s.calls.filter((c) => c.api === 'ipcMain.handle')).toHaveLength(1);
    // A channel added to shared/host-api.ts needs a sample here (and a handler in main).
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(HOST_CHANNELS).sort());
    page.ipc.length = 0;
    const answers: Record<string, string> = {};
    for (const [channel, payload] of Object.entries(SAMPLES)) {
      const r = await invokeByName(channel, payload);
      answers[channel] = r.ok ? 'ok' : `${r.error.code}: ${r.error.message}`;
    }
    const unreached = Object.entries(answers).filter(([, a]) =>
      /^(EBADCHANNEL|EINVAL|EFORBIDDEN|EINTERNAL|EIPC)\b/.test(a),
    );
    expect(unreached, 'channels whose call never reached a handler').toEqual([]);
    expect(page.ipc.every((c) => c[0] === 'invoke' && c[1] === IPC_CHANNELS.invoke)).toBe(true);
    expect(page.ipc.map((c) => c[2])).toEqual(Object.keys(SAMPLES));
    // And a channel nobody declared is refused as such (the check above can fail).
    expect(await bridge.invoke('nope:nope' as 'demo:list', {})).toMatchObject({
      ok: false,
      error: { code: 'EBADCHANNEL' },
    });
  });

  it('refuses a call from any frame but our window main frame, before it reaches the host', async () => {
    const other = await shell.command<number>('create-contents', { kind: 'webview' });
    const start = ['session:start', { demo: { id: 'healthy' } }];
    const foreign = [
      { frame: { url: 'app://pipescope/index.html', parent: 'app://pipescope/index.html' } },
      { frame: { url: 'https://evil.test/' } },
      { frame: { url: 'file:///tmp/x.html' } },
      { frame: { url: 'app://pipescope.evil.test/index.html' } },
      { frame: null },
      { contents: other, frame: { url: 'app://pipescope/index.html' } },
    ] as const;
    for (const from of foreign) {
      const r = (await shell.invoke(IPC_CHANNELS.invoke, start, from)) as Result<unknown>;
      expect(r, JSON.stringify(from)).toMatchObject({ ok: false, error: { code: 'EFORBIDDEN' } });
    }
    const list = (await bridge.invoke('session:list', {})) as Result<SessionInfo[]>;
    expect(list).toEqual({ ok: true, value: [] });
    expect(shell.serverPids.size, 'no server was started').toBe(0);
  });
});

describe('the menu reaches the same host calls as the UI', () => {
  it('New Session, Import Config…, Save Trace…, Open Trace…, About (through the renderer’s menu handler)', async () => {
    const host = createElectronHost(bridge);
    const store = createAppStore();
    const off = connectMenuEvents(host, store);
    const invoked = () => page.ipc.filter((c) => c[0] === 'invoke').map((c) => c[2]);
    const settle = async (what: string, done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    // Import Config…: the dialog's file is read in main, then imported as the start screen does.
    const config = path.join(ROOT, 'test/fixtures/configs/claude_desktop_config.json');
    await shell.command('dialog-answer', {
      kind: 'open',
      answer: { canceled: false, filePaths: [config] },
    });
    page.ipc.length = 0;
    await shell.command('menu-click', { id: 'import-config' });
    await settle('the import', () => store.getState().imported !== null);
    expect(invoked()).toEqual(['config:import']);
    // ImportConfig.tsx sends the same call for a file picked on the start screen.
    const direct = await bridge.invoke('config:import', {
      format: 'auto',
      text: readFileSync(config, 'utf8'),
      fileName: config,
    });
    expect(direct.ok && store.getState().imported?.result).toEqual(direct.ok && direct.value);

    // A cancelled dialog does nothing.
    page.ipc.length = 0;
    const sentBefore = shell.sent.length;
    await shell.command('menu-click', { id: 'import-config' });
    await new Promise((r) => setTimeout(r, 200));
    expect(invoked()).toEqual([]);
    expect(
      shell.sent.slice(sentBefore).filter((e) => (e.args[0] as HostEvent).type === 'menu'),
    ).toEqual([]);

    // Save Trace… records the active session to the chosen file (.jsonl added).
    const started = await bridge.invoke('session:start', { demo: { id: 'healthy' } });
    if (!started.ok) throw new Error(started.error.message);
    store.getState().openSession(started.value);
    const chosen = path.join(scratch, 'menu-trace');
    await shell.command('dialog-answer', {
      kind: 'save',
      answer: { canceled: false, filePath: chosen },
    });
    page.ipc.length = 0;
    await shell.command('menu-click', { id: 'save-trace' });
    await settle('the recording', () => invoked().includes('session:record'));
    await settle('the file', () => existsSync(`${chosen}.jsonl`));
    await bridge.invoke('session:stop', { sessionId: started.value.id });

    // Open Trace… opens it read-only, as the trace screen does.
    await shell.command('dialog-answer', {
      kind: 'open',
      answer: { canceled: false, filePaths: [`${chosen}.jsonl`] },
    });
    page.ipc.length = 0;
    await shell.command('menu-click', { id: 'open-trace' });
    await settle(
      'the trace tab',
      () => store.getState().activeId !== started.value.id && store.getState().activeId !== null,
    );
    expect(invoked()).toEqual(['trace:open']);
    const active = store.getState().bySession[store.getState().activeId ?? ''];
    expect(active?.info.trace?.path).toBe(`${chosen}.jsonl`);

    // New Session shows the start tab; About opens a box on the window. No host call either.
    page.ipc.length = 0;
    await shell.command('menu-click', { id: 'new-session' });
    await settle('the start tab', () => store.getState().activeId === null);
    await shell.command('menu-click', { id: 'about' });
    expect(invoked()).toEqual([]);
    const s = await shell.state();
    expect(s.calls.filter((c) => c.api === 'dialog.showMessageBox').map((c) => c.args[0])).toEqual([
      '[BrowserWindow#1]',
    ]);
    // The project page item is disabled without an https homepage (nothing to open).
    await expect(shell.command('menu-click', { id: 'project-page' })).rejects.toThrow(/disabled/);
    off();
  });
});

describe('a real session through the IPC handlers', () => {
  it('starts a demo server, its frames arrive as events on webContents.send, and it stops', async () => {
    const events: HostEvent[] = [];
    const off = bridge.subscribe((e) => events.push(e));
    const started = await bridge.invoke('session:start', { demo: { id: 'healthy' } });
    if (!started.ok) throw new Error(started.error.message);
    const { id, pid } = started.value;
    expect(pid).toBeGreaterThan(0);
    const frames = () =>
      events.flatMap((e) =>
        e.type === 'snapshot' && e.snapshot.sessionId === id ? e.snapshot.frames : [],
      );
    const deadline = Date.now() + 10_000;
    while (!frames().some((f) => f.method === 'tools/list') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const call = await bridge.invoke('request:call-tool', {
      sessionId: id,
      name: 'echo',
      args: { text: 'over IPC' },
    });
    if (!call.ok) throw new Error(call.error.message);
    while (
      !frames().some((f) => f.dir === 'in' && f.id === call.value.requestId) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 20));
    const answer = frames().find((f) => f.dir === 'in' && f.id === call.value.requestId);
    expect(answer?.preview).toContain('over IPC');
    expect(frames().map((f) => `${f.dir} ${f.method ?? f.kind}`)).toEqual(
      expect.arrayContaining(['out initialize', 'out tools/list', 'out tools/call']),
    );
    // Every event went to our window, on the one event channel, as the preload hands them on.
    expect(shell.sent.every((e) => e.contents === 1 && e.channel === IPC_CHANNELS.event)).toBe(
      true,
    );
    const page1 = await bridge.invoke('frame:page', {
      sessionId: id,
      seq: answer?.seq ?? 0,
      offset: 0,
      length: 65536,
    });
    expect(page1.ok && page1.value.text).toContain('over IPC');

    expect(await bridge.invoke('session:stop', { sessionId: id })).toEqual({
      ok: true,
      value: null,
    });
    expect(pid !== null && running(pid)).toBe(false);
    off();
  });
});
