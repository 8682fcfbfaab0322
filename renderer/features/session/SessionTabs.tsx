/** The tab bar: the start screen plus one tab per session, each with its state and a close. */
import type { ReactElement } from 'react';
import { useHost } from '../../app/host-context';
import { appStore, useApp } from '../../store';

export function SessionTabs(): ReactElement {
  const host = useHost();
  const sessions = useApp((s) => s.sessions);
  const activeId = useApp((s) => s.activeId);
  const close = async (sessionId: string): Promise<void> => {
    const r = await host.invoke('session:close', { sessionId });
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
            {s.title}
          </button>
          <button
            type="button"
            className="tab-close"
            aria-label={`Close ${s.title}`}
            data-testid={`close-${s.id}`}
            title="Stop the server and close the tab"
            onClick={() =>
              void close(s.id).catch((e: unknown) => appStore.getState().notify(String(e)))
            }
          >
            ×
          </button>
        </div>
      ))}
    </nav>
  );
}
