/**
 * The HostApi the components call, provided once at the root. Only renderer/host/ knows how it
 * talks (Electron bridge or WebSocket); everything here sees the interface.
 */
import { createContext, useContext } from 'react';
import type { HostApi } from '../../shared/host-api';

export const HostContext = createContext<HostApi | null>(null);

export function useHost(): HostApi {
  const host = useContext(HostContext);
  if (!host) throw new Error('useHost outside <HostContext.Provider>');
  return host;
}
