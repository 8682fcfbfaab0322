/** Toasts for failed host calls and refused actions; each fades after a few seconds. */
import { type ReactElement, useEffect } from 'react';
import { appStore, useApp } from '../store';

const SHOW_MS = 6000;

export function Notices(): ReactElement {
  const notices = useApp((s) => s.notices);
  useEffect(() => {
    if (notices.length === 0) return;
    const oldest = notices[0];
    const timer = setTimeout(() => appStore.getState().dismissNotice(oldest.id), SHOW_MS);
    return () => clearTimeout(timer);
  }, [notices]);
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className="notice" data-level={n.level} data-testid="notice">
          <span>{n.text}</span>
          <button
            type="button"
            className="small"
            aria-label="Dismiss"
            onClick={() => appStore.getState().dismissNotice(n.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
