/** App-wide keys: `?` toggles the shortcut list, Escape closes it or the frame viewer. */
import { useEffect } from 'react';
import { isShortcutEvent } from '../features/shortcuts/shortcuts';
import { appStore } from '../store';

export function useGlobalKeys(helpOpen: boolean, setHelpOpen: (open: boolean) => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') {
        if (helpOpen) setHelpOpen(false);
        else {
          const { activeId, selectFrame } = appStore.getState();
          if (activeId) selectFrame(activeId, null);
        }
        return;
      }
      if (e.key === '?' && isShortcutEvent(e)) {
        e.preventDefault();
        setHelpOpen(!helpOpen);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [helpOpen, setHelpOpen]);
}
