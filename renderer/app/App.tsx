/**
 * The app shell: connects the store to the host once, then shows the tab bar, the start screen
 * (kept mounted so its forms keep what was typed) and the active session's dashboard.
 */
import { type ReactElement, useEffect, useState } from 'react';
import type { HostApi } from '../../shared/host-api';
import { SessionTabs } from '../features/session/SessionTabs';
import { SessionView } from '../features/session/SessionView';
import { ShortcutHelp } from '../features/shortcuts/ShortcutHelp';
import { StartScreen } from '../features/start/StartScreen';
import { TraceDropZone } from '../features/trace/TraceDropZone';
import { appStore, useApp } from '../store';
import { connectStore } from '../store/connect';
import { HostContext } from './host-context';
import { connectMenuEvents } from './menu-actions';
import { Notices } from './Notices';
import { useGlobalKeys } from './useGlobalKeys';

export function App({ host }: { host: HostApi }): ReactElement {
  useEffect(() => connectStore(host, appStore), [host]);
  useEffect(() => connectMenuEvents(host, appStore), [host]);
  return (
    <HostContext.Provider value={host}>
      <Shell />
    </HostContext.Provider>
  );
}

function Shell(): ReactElement {
  const connection = useApp((s) => s.connection);
  const connectionError = useApp((s) => s.connectionError);
  const hostKind = useApp((s) => s.hostKind);
  const catalogLoaded = useApp((s) => s.catalog !== null);
  const activeId = useApp((s) => s.activeId);
  const [helpOpen, setHelpOpen] = useState(false);
  useGlobalKeys(helpOpen, setHelpOpen);
  // A dropped link keeps the dashboard on screen (marked reconnecting) while the host retries.
  const ready = (connection === 'connected' || connection === 'reconnecting') && catalogLoaded;
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Pipescope
        </span>
        <SessionTabs />
        <span
          className="host-status"
          data-connection={connection}
          title={connectionError ?? undefined}
        >
          <span
            className="dot"
            data-state={
              connection === 'connected'
                ? 'running'
                : connection === 'failed'
                  ? 'failed'
                  : 'starting'
            }
          />
          {hostKind ?? 'host'} · {connection}
        </span>
        <button
          type="button"
          className="small"
          aria-label="Keyboard shortcuts"
          onClick={() => setHelpOpen(!helpOpen)}
        >
          ?
        </button>
      </header>
      <main data-state={ready ? 'ready' : connection === 'failed' ? 'failed' : 'connecting'}>
        {connection === 'failed' ? (
          <p className="error-text banner">Cannot reach the Pipescope host: {connectionError}</p>
        ) : null}
        <div hidden={activeId !== null} className="start-wrap">
          <StartScreen />
        </div>
        {activeId !== null ? <SessionView key={activeId} sessionId={activeId} /> : null}
      </main>
      <TraceDropZone />
      <Notices />
      {helpOpen ? <ShortcutHelp onClose={() => setHelpOpen(false)} /> : null}
    </div>
  );
}
