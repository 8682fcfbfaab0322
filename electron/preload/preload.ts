/**
 * Preload: exposes exactly one narrow object, `window.pipescope`, implementing the HostApi of
 * shared/host-api.ts over IPC (HARDENING.md 30). It never exposes ipcRenderer or any Electron
 * object; the renderer can only invoke by channel name (validated again in main) and subscribe to
 * the event stream. Bundled to dist/preload/preload.cjs (vite.preload.config.ts): a sandboxed
 * preload must be one CommonJS file whose only import is 'electron'.
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import { IPC_CHANNELS } from '../../shared/bridge-protocol.js';
import type { HostApi, HostEvent } from '../../shared/host-api.js';
import type { Result } from '../../shared/result.js';

// The channel names are shared/bridge-protocol.ts's, as main's (preload and main never import
// each other: both import shared/).
const { invoke: INVOKE_CHANNEL, event: EVENT_CHANNEL } = IPC_CHANNELS;

function badChannel(): Promise<Result<never>> {
  return Promise.resolve({
    ok: false,
    error: { code: 'EBADCHANNEL', message: 'channel must be a non-empty string' },
  });
}

const bridge: HostApi = {
  kind: 'electron',
  invoke(channel: unknown, request: unknown) {
    if (typeof channel !== 'string' || channel.length === 0) return badChannel();
    return ipcRenderer.invoke(INVOKE_CHANNEL, channel, request);
  },
  subscribe(listener: (event: HostEvent) => void) {
    if (typeof listener !== 'function') throw new TypeError('subscribe needs a function');
    const wrapped = (_event: IpcRendererEvent, hostEvent: HostEvent): void => listener(hostEvent);
    ipcRenderer.on(EVENT_CHANNEL, wrapped);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
    };
  },
};

contextBridge.exposeInMainWorld('pipescope', bridge);
