/** Starts a session (demo, custom or imported server) and opens its tab on success. */
import { useCallback } from 'react';
import type { StartSessionRequest } from '../../../shared/host-api';
import type { Result } from '../../../shared/result';
import type { SessionInfo } from '../../../shared/session-info';
import { useHost } from '../../app/host-context';
import { type AsyncAction, useAsyncAction } from '../../components/useAsyncAction';
import { appStore } from '../../store';

/** The start call itself: `session:start`, then the new session's tab is shown. */
export function useStartCall(): (request: StartSessionRequest) => Promise<Result<SessionInfo>> {
  const host = useHost();
  return useCallback(
    async (request: StartSessionRequest): Promise<Result<SessionInfo>> => {
      const r = await host.invoke('session:start', request);
      // A server that failed to spawn still gets a tab: its start error is the diagnosis.
      if (r.ok) appStore.getState().openSession(r.value);
      return r;
    },
    [host],
  );
}

export function useStartSession(): AsyncAction<[StartSessionRequest], SessionInfo> {
  return useAsyncAction(useStartCall());
}
