/**
 * Runs the built preload bundle (dist/preload/preload.cjs) against a fake 'electron' module, so
 * the real bridge is checked without Electron: exactly one object exposed, as `pipescope`, with
 * only `kind`, `invoke` and `subscribe`; invoke goes through the one invoke channel and refuses
 * non-string channels; subscribe adds one listener and its unsubscribe removes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../shared/bridge-protocol.js';

const { invoke: INVOKE_CHANNEL, event: EVENT_CHANNEL } = IPC_CHANNELS;

const BUNDLE = fileURLToPath(new URL('../../dist/preload/preload.cjs', import.meta.url));

type Listener = (event: unknown, payload: unknown) => void;

interface Bridge {
  kind: string;
  invoke(channel: unknown, request: unknown): Promise<unknown>;
  subscribe(listener: unknown): () => void;
}

function loadBridge() {
  const exposed: [string, unknown][] = [];
  const invoked: unknown[][] = [];
  const listeners = new Map<string, Set<Listener>>();
  const fakeElectron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => exposed.push([key, api]),
    },
    ipcRenderer: {
      invoke: (...args: unknown[]) => {
        invoked.push(args);
        return Promise.resolve({ ok: true, value: 'from main' });
      },
      on: (channel: string, l: Listener) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)?.add(l);
      },
      removeListener: (channel: string, l: Listener) => listeners.get(channel)?.delete(l),
    },
  };
  const requested: string[] = [];
  const fakeRequire = (id: string): unknown => {
    requested.push(id);
    if (id === 'electron') return fakeElectron;
    throw new Error(`preload required ${id}`);
  };
  const module = { exports: {} };
  // The bundle is our own build output, run here with a fake `require` instead of Electron's.
  new Function('require', 'module', 'exports', readFileSync(BUNDLE, 'utf8'))(
    fakeRequire,
    module,
    module.exports,
  );
  return { exposed, invoked, listeners, requested };
}

describe.skipIf(!existsSync(BUNDLE))('the preload bridge (built bundle, fake electron)', () => {
  it('exposes exactly one object, pipescope, with kind, invoke and subscribe', () => {
    const { exposed, requested } = loadBridge();
    expect(requested).toEqual(['electron']);
    expect(exposed).toHaveLength(1);
    const [key, api] = exposed[0];
    expect(key).toBe('pipescope');
    expect(Object.keys(api as object).sort()).toEqual(['invoke', 'kind', 'subscribe']);
    expect((api as Bridge).kind).toBe('electron');
  });

  it('invokes through the one channel and refuses non-string channels', async () => {
    const { exposed, invoked } = loadBridge();
    const api = exposed[0][1] as Bridge;
    expect(await api.invoke('demo:list', {})).toEqual({ ok: true, value: 'from main' });
    expect(invoked).toEqual([[INVOKE_CHANNEL, 'demo:list', {}]]);
    for (const bad of [42, null, undefined, '', { toString: () => 'demo:list' }]) {
      expect(await api.invoke(bad, {})).toMatchObject({
        ok: false,
        error: { code: 'EBADCHANNEL' },
      });
    }
    expect(invoked).toHaveLength(1);
  });

  it('subscribe wraps the listener (no IPC event object leaks) and unsubscribes', () => {
    const { exposed, listeners } = loadBridge();
    const api = exposed[0][1] as Bridge;
    const received: unknown[] = [];
    const unsubscribe = api.subscribe((e: unknown) => received.push(e));
    const registered = [...(listeners.get(EVENT_CHANNEL) ?? [])];
    expect(registered).toHaveLength(1);
    registered[0]({ sender: 'ipc internals' }, { type: 'sessions', sessions: [] });
    expect(received).toEqual([{ type: 'sessions', sessions: [] }]);
    unsubscribe();
    expect(listeners.get(EVENT_CHANNEL)?.size).toBe(0);
    expect(() => api.subscribe('not a function')).toThrow(TypeError);
  });
});
