/**
 * The tab bar: the start screen plus one tab per session, each with its state and a close. A
 * tapped session's tab carries a badge (the host and its pid as the tooltip); its close only
 * hides the tab here, since the host owns its server (the tap refuses session:close).
 */
import '../tap/tap.css';
import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../shared/session-info';
import { useHost } from '../../app/host-context';
import { appStore, useApp } from '../../store';
import { closeTitle, hostTap, tapBadgeTitle } from '../tap/tap-view';

export function SessionTabs(): ReactElement {
  const host = useHost();
  const sessions = useApp((s) => s.sessions);
  const activeId = useApp((s) => s.activeId);
  const close = async (info: SessionInfo): Promise<void> => {
    if (hostTap(info)) {
      appStore.getState().hideSession(info.id);
      return;
    }
    const r = await host.invoke('session:close', { sessionId: info.id });
    if (!r.ok) appStore.getState().notify(`session:close: ${r.error.message}`);
  };
  return (
    <nav className="tabs" aria-label="Sessions">
      <button
        type="button"
        className="tab"
        aria-current={activeId === null ? 'page' : undefined}
        data-testid="tab-start"
        onClick={() => appStore.getState().setActive(null)}
      >
        + New
      </button>
      {sessions.map((s) => (
        <div
          key={s.id}
          className="tab"
          data-testid={`tab-${s.id}`}
          aria-current={activeId === s.id ? 'page' : undefined}
        >
          <button
            type="button"
            className="tab-open"
            title={s.title}
            onClick={() => appStore.getState().setActive(s.id)}
          >
            <span className="dot" data-state={s.state} />
            {s.trace ? <span className="tab-trace">TRACE</span> : null}
            {s.tap ? (
              <span
                className="tab-tap"
                data-testid={`tab-tapped-${s.id}`}
                title={tapBadgeTitle(s.tap)}
              >
                {s.tap.replay ? 'REPLAY' : 'TAPPED'}
              </span>
            ) : null}
            {s.title}
          </button>
          <button
            type="button"
            className="tab-close"
            aria-label={`Close ${s.title}`}
            data-testid={`close-${s.id}`}
            title={closeTitle(s)}
            onClick={() =>
              void close(s).catch((e: unknown) => appStore.getState().notify(String(e)))
            }
          >
            ×
          </button>
        </div>
      ))}
    </nav>
  );
}
