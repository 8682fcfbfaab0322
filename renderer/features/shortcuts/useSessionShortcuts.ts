/**
 * `c` cancel, `r` replay, `p` pause/drain for the visible session. Reads the store at key time
 * (no subscription: shortcuts must not re-render anything). A tapped session (`tapped`) has no
 * `p`: its reader is the host's.
 */
import { useEffect } from 'react';
import { appStore } from '../../store';
import { cancelTarget, replayTarget } from '../../store/selectors';
import type { SessionActions } from '../session/useSessionActions';
import { isShortcutEvent } from './shortcuts';

export function useSessionShortcuts(
  sessionId: string,
  actions: SessionActions,
  readOnly = false,
  tapped = false,
): void {
  useEffect(() => {
    if (readOnly) return; // a trace session has no server to act on
    const onKey = (e: KeyboardEvent): void => {
      if (!isShortcutEvent(e)) return;
      const state = appStore.getState();
      const data = state.bySession[sessionId];
      if (!data) return;
      const selected = state.selection[sessionId]?.requestId ?? null;
      if (e.key === 'c') {
        const target = cancelTarget(data.requests, selected);
        if (target) void actions.cancel(target.id);
        else state.notify('Nothing to cancel: no request is in flight.', 'info');
      } else if (e.key === 'r') {
        const target = replayTarget(data.requests, selected);
        if (target) void actions.replay(target.id);
        else state.notify('Nothing to replay yet.', 'info');
      } else if (e.key === 'p') {
        if (data.info.state !== 'running' || tapped) return;
        void actions.setReaderMode(data.info.readerMode === 'paused' ? 'drain' : 'paused');
      } else {
        return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [sessionId, actions, readOnly, tapped]);
}
