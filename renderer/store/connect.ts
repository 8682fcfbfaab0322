/**
 * Connects the store to a host: one `ingest` per HostEvent, then loads the demo catalog and the
 * current session list. Returns the disposer (unsubscribes; late answers are ignored).
 */
import type { StoreApi } from 'zustand/vanilla';
import type { HostApi } from '../../shared/host-api';
import type { AppStore } from './store';

export function connectStore(host: HostApi, store: StoreApi<AppStore>): () => void {
  let live = true;
  // The host may push its session list on subscribe; a list answered later could be older.
  let sawSessions = false;
  const actions = store.getState();
  actions.setConnection('connecting', null, host.kind);
  const unsubscribe = host.subscribe((event) => {
    if (!live) return;
    if (event.type === 'sessions') sawSessions = true;
    store.getState().ingest(event);
  });
  void (async () => {
    const [catalog, sessions] = await Promise.all([
      host.invoke('demo:list', {}),
      host.invoke('session:list', {}),
    ]);
    if (!live) return;
    if (sessions.ok && !sawSessions)
      store.getState().ingest({ type: 'sessions', sessions: sessions.value });
    // `pipescope open <file>` opened a trace before the page loaded: show it.
    const first = store.getState();
    const trace = first.sessions.findLast((s) => s.trace !== null);
    if (first.activeId === null && trace) first.setActive(trace.id);
    if (catalog.ok) {
      store.getState().setCatalog(catalog.value);
      store.getState().setConnection('connected');
    } else {
      store.getState().setCatalog(null, catalog.error.message);
      store.getState().setConnection('failed', `${catalog.error.code}: ${catalog.error.message}`);
    }
  })().catch((e: unknown) => {
    if (live) store.getState().setConnection('failed', e instanceof Error ? e.message : String(e));
  });
  return () => {
    live = false;
    unsubscribe();
  };
}
