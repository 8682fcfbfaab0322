/**
 * What the renderer does with an Electron menu event (shared/host-api.ts AppMenuEvent): New
 * Session shows the start tab, Import Config… imports the file's text and lists its servers on the
 * start screen, Open Trace… opens the trace read-only, Save Trace… records the active session to
 * the chosen file (or says where it already records). Plain functions over the host and the store.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { AppMenuEvent, HostApi } from '../../shared/host-api';
import type { AppStore } from '../store';

export async function handleMenuEvent(
  event: AppMenuEvent,
  host: HostApi,
  store: StoreApi<AppStore>,
): Promise<void> {
  const app = store.getState();
  switch (event.action) {
    case 'new-session':
      app.setActive(null);
      return;
    case 'import-config': {
      app.setActive(null);
      const r = await host.invoke('config:import', {
        format: 'auto',
        text: event.text,
        fileName: event.fileName,
      });
      if (r.ok) store.getState().setImported({ fileName: event.fileName, result: r.value });
      else store.getState().notify(`Import ${event.fileName}: ${r.error.message}`);
      return;
    }
    case 'open-trace': {
      const r = await host.invoke('trace:open', { path: event.path });
      if (r.ok) store.getState().openSession(r.value);
      else store.getState().notify(`Open trace: ${r.error.message}`);
      return;
    }
    case 'save-trace': {
      const active = app.activeId === null ? undefined : app.bySession[app.activeId];
      if (!active || active.info.trace) {
        app.notify('Save Trace… records a running session: open its tab first.', 'info');
        return;
      }
      if (active.info.recording?.active) {
        app.notify(`Already recording to ${active.info.recording.path}`, 'info');
        return;
      }
      const r = await host.invoke('session:record', {
        sessionId: active.info.id,
        record: true,
        path: event.path,
        // The system's save dialog has asked about replacing the file already.
        overwrite: true,
      });
      if (r.ok) store.getState().notify(`Recording to ${r.value.path}`, 'info');
      else store.getState().notify(`Save trace: ${r.error.message}`);
      return;
    }
  }
}

/** Subscribes to the host's menu events; returns the unsubscribe. */
export function connectMenuEvents(host: HostApi, store: StoreApi<AppStore>): () => void {
  return host.subscribe((event) => {
    if (event.type !== 'menu') return;
    handleMenuEvent(event, host, store).catch((e: unknown) =>
      store.getState().notify(e instanceof Error ? e.message : String(e)),
    );
  });
}
