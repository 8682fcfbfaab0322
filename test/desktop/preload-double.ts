/**
 * The renderer's side of the Electron double: runs the real built preload (the file the shell's
 * window names in webPreferences.preload) the way a sandboxed preload runs, in a context of its
 * own with a `require` that knows only `electron`, and gives it a stand-in contextBridge and
 * ipcRenderer. ipcRenderer is wired to a ShellProcess: invoke goes to the shell's IPC handler as
 * the window's main frame, and what the shell sends the window arrives on the listeners. So the
 * test holds what the page would hold, `window.pipescope`, over the real main process.
 *
 * Anything else the preload asks of `electron` is recorded as unknown and throws.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import type { ShellProcess } from './shell-process.js';

type Listener = (event: unknown, ...args: unknown[]) => void;

export interface PreloadRun {
  /** What contextBridge.exposeInMainWorld was given, in order (key, the object as given). */
  exposed: [string, unknown][];
  /** The page's view: `window[key]` for each exposed key (functions proxied, as Electron does). */
  mainWorld: Record<string, unknown>;
  /** Every module the preload required. */
  required: string[];
  /** Every member of `electron` it asked for that the double does not implement. */
  unknown: string[];
  /** ipcRenderer calls: [method, channel, ...args]. */
  ipc: unknown[][];
  /** Live listeners by channel. */
  listeners: Map<string, Set<Listener>>;
  dispose(): void;
}

function strict<T extends object>(name: string, target: T, unknown: string[]): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop === 'symbol' || prop in t) return Reflect.get(t, prop, receiver);
      if (prop === 'then') return undefined;
      unknown.push(`${name}.${prop}`);
      throw new Error(`electron double: ${name}.${prop} is not implemented`);
    },
  });
}

/**
 * What contextBridge gives the main world: a copy, functions wrapped (arguments and results
 * pass the bridge too), no prototype kept. Values the bridge cannot carry throw, as Electron's.
 */
function acrossBridge(value: unknown, depth = 0): unknown {
  if (depth > 20) throw new Error('contextBridge: object too deep');
  if (typeof value === 'function') {
    return (...args: unknown[]) => {
      const result = (value as (...a: unknown[]) => unknown)(
        ...args.map((a) => acrossBridge(a, depth + 1)),
      );
      return acrossBridge(result, depth + 1);
    };
  }
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { then?: unknown }).then === 'function')
    return Promise.resolve(value as Promise<unknown>).then((v) => acrossBridge(v, depth + 1));
  if (Array.isArray(value)) return value.map((v) => acrossBridge(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = acrossBridge(v, depth + 1);
  return out;
}

/** Runs `file` (the built preload) against `shell`'s window (its first web contents by default). */
export function runPreload(file: string, shell: ShellProcess, contentsId = 1): PreloadRun {
  const run: PreloadRun = {
    exposed: [],
    mainWorld: {},
    required: [],
    unknown: [],
    ipc: [],
    listeners: new Map(),
    dispose: () => {},
  };
  const contextBridge = strict(
    'contextBridge',
    {
      exposeInMainWorld(key: string, api: unknown) {
        if (Object.hasOwn(run.mainWorld, key))
          throw new Error(
            `Cannot bind an API on top of an existing property on the window object (${key})`,
          );
        run.exposed.push([key, api]);
        run.mainWorld[key] = acrossBridge(api);
      },
    },
    run.unknown,
  );
  const ipcRendererTarget = {
    invoke(channel: string, ...args: unknown[]): Promise<unknown> {
      run.ipc.push(['invoke', channel, ...args]);
      return shell.invoke(channel, structuredClone(args), { frame: 'main', contents: contentsId });
    },
    on(channel: string, listener: Listener) {
      run.ipc.push(['on', channel]);
      if (!run.listeners.has(channel)) run.listeners.set(channel, new Set());
      run.listeners.get(channel)?.add(listener);
      return ipcRenderer;
    },
    removeListener(channel: string, listener: Listener) {
      run.ipc.push(['removeListener', channel]);
      run.listeners.get(channel)?.delete(listener);
      return ipcRenderer;
    },
  };
  const ipcRenderer: typeof ipcRendererTarget = strict(
    'ipcRenderer',
    ipcRendererTarget,
    run.unknown,
  );
  const electron = strict('electron', { contextBridge, ipcRenderer }, run.unknown);

  run.dispose = shell.onSend((e) => {
    if (e.contents !== contentsId) return;
    for (const l of run.listeners.get(e.channel) ?? []) {
      const event = { sender: ipcRenderer, senderId: 0, ports: [] };
      l(event, ...structuredClone(e.args));
    }
  });

  // A sandboxed preload's `require` knows electron (and a few Node shims we do not use).
  const sandboxRequire = (id: string): unknown => {
    run.required.push(id);
    if (id === 'electron') return electron;
    throw new Error(`module not found: ${id} (a sandboxed preload can require only electron)`);
  };
  const module = { exports: {} };
  const context = vm.createContext({});
  const fn = vm.compileFunction(readFileSync(file, 'utf8'), ['require', 'module', 'exports'], {
    filename: file,
    parsingContext: context,
  }) as (r: typeof sandboxRequire, m: typeof module, e: object) => void;
  fn(sandboxRequire, module, module.exports);
  return run;
}
