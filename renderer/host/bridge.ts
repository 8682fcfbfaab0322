/**
 * The type of `window.pipescope`, the one bridge object Electron's preload exposes through
 * contextBridge (HARDENING.md 30). It implements HostApi's calls and event stream; the preload
 * (electron/preload) feeds it, renderer/host/electron-host.ts is its only reader in the renderer.
 */
import type { HostApi } from '../../shared/host-api.js';

export type PipescopeBridge = Pick<HostApi, 'invoke' | 'subscribe'>;

declare global {
  interface Window {
    /** Present only inside the Electron app; absent in browser mode. */
    pipescope?: PipescopeBridge;
  }
}
