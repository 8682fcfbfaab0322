/**
 * getHost(): the renderer's one way to its host (STYLE.md "Contracts once"). Inside Electron the
 * preload bridge `window.pipescope` exists and the Electron host wraps it; otherwise this is
 * browser mode and the host speaks to `pipescope web` over its WebSocket. Memoized: one host,
 * one socket, for the page's lifetime.
 */
import type { HostApi } from '../../shared/host-api.js';
import { createBrowserHost } from './browser-host.js';
import { createElectronHost } from './electron-host.js';

let host: HostApi | null = null;

export function getHost(): HostApi {
  if (host) return host;
  const bridge = window.pipescope;
  host = bridge ? createElectronHost(bridge) : createBrowserHost();
  return host;
}

export type { PipescopeBridge } from './bridge.js';
