/**
 * Closing sessions from the tab bar, its overflow list and the start screen's list: one, or
 * several at once (Close others, Close stopped). A failed call becomes a notice.
 */
import { useMemo } from 'react';
import { MAX_CLOSE_MANY } from '../../../shared/host-api';
import type { SessionInfo } from '../../../shared/session-info';
import { useHost } from '../../app/host-context';
import { appStore } from '../../store';
import { closePlan } from './session-closing';

export interface SessionClosing {
  close(info: SessionInfo): Promise<void>;
  /** `onlyEnded`: the host keeps any whose server runs again meanwhile. */
  closeMany(infos: readonly SessionInfo[], onlyEnded?: boolean): Promise<void>;
}

export function useSessionClosing(): SessionClosing {
  const host = useHost();
  return useMemo(() => {
    const closeMany = async (infos: readonly SessionInfo[], onlyEnded = false): Promise<void> => {
      const plan = closePlan(infos);
      for (const id of plan.hide) appStore.getState().hideSession(id);
      for (let i = 0; i < plan.close.length; i += MAX_CLOSE_MANY) {
        const sessionIds = plan.close.slice(i, i + MAX_CLOSE_MANY);
        const r = await host.invoke('session:close-many', { sessionIds, onlyEnded });
        if (!r.ok) appStore.getState().notify(`session:close-many: ${r.error.message}`);
      }
    };
    const close = async (info: SessionInfo): Promise<void> => {
      if (closePlan([info]).hide.length > 0) {
        appStore.getState().hideSession(info.id);
        return;
      }
      const r = await host.invoke('session:close', { sessionId: info.id });
      if (!r.ok) appStore.getState().notify(`session:close: ${r.error.message}`);
    };
    const guard =
      <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
      (...args: A): Promise<void> =>
        fn(...args).catch((e: unknown) => appStore.getState().notify(String(e)));
    return { close: guard(close), closeMany: guard(closeMany) };
  }, [host]);
}
