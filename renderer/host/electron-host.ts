/**
 * HostApi inside the Electron app: a thin wrapper over the preload bridge `window.pipescope`.
 * Fed by: the bridge (IPC to main, validated there). Listens: the renderer through getHost().
 * The wrapper's one job is the contract's promise that calls answer with data: an IPC failure
 * that rejects (a thrown error carries only its message across IPC) becomes an error Result.
 */
import type { ChannelRequest, HostApi, HostChannel } from '../../shared/host-api.js';
import { err } from '../../shared/result.js';
import type { PipescopeBridge } from './bridge.js';

export function createElectronHost(bridge: PipescopeBridge): HostApi {
  return {
    kind: 'electron',
    invoke: async <C extends HostChannel>(channel: C, request: ChannelRequest<C>) => {
      try {
        return await bridge.invoke(channel, request);
      } catch (e) {
        return err('EIPC', `${channel}: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    subscribe: (listener) => bridge.subscribe(listener),
  };
}
