/**
 * The app store (zustand). Owns: the session list, per-session data built from snapshots, UI
 * selections, the demo catalog and the host connection state. Fed by: `connectStore` (one
 * `ingest` per HostEvent, one `set` each) and user actions. Listens: components, through narrow
 * selectors (a metrics change must not re-render the frames log).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { DemoScenario } from '../../shared/demo-catalog';
import type { HostEvent, ImportResult, RecoveryInfo } from '../../shared/host-api';
import type { JsonRpcId } from '../../shared/requests';
import type { SessionInfo } from '../../shared/session-info';
import { applySessions, emptyDataState, openSession, reduceEvent } from './reducers';
import {
  type AppState,
  type ConnectionState,
  DEFAULT_LIMITS,
  type Notice,
  type SessionSelection,
  type StoreLimits,
} from './types';

export interface AppActions {
  ingest(event: HostEvent): void;
  setConnection(
    state: ConnectionState,
    error?: string | null,
    hostKind?: AppState['hostKind'],
  ): void;
  setCatalog(catalog: DemoScenario[] | null, error?: string | null): void;
  openSession(info: SessionInfo): void;
  /** Takes a session's tab away here only (a tapped session: the host owns its server). */
  hideSession(id: string): void;
  setActive(id: string | null): void;
  selectRequest(sessionId: string, requestId: JsonRpcId | null): void;
  selectFrame(sessionId: string, seq: number | null): void;
  setRecovery(sessionId: string, recovery: RecoveryInfo): void;
  notify(text: string, level?: Notice['level']): void;
  setImported(imported: { fileName: string; result: ImportResult } | null): void;
  dismissNotice(id: number): void;
}

export type AppStore = AppState & AppActions;

const NOTICES_KEPT = 5;
const HIDDEN_IDS_KEPT = 200;
let noticeSeq = 0;

const NO_SELECTION: SessionSelection = { requestId: null, frameSeq: null };

export function initialAppState(): AppState {
  return {
    ...emptyDataState(),
    connection: 'connecting',
    connectionError: null,
    hostKind: null,
    catalog: null,
    catalogError: null,
    selection: {},
    notices: [],
    imported: null,
    hiddenIds: [],
  };
}

export function createAppStore(limits: StoreLimits = DEFAULT_LIMITS): StoreApi<AppStore> {
  return createStore<AppStore>()((set) => ({
    ...initialAppState(),
    ingest: (event) =>
      set((s) => {
        if (event.type === 'notice')
          return { notices: pushNotice(s.notices, event.text, event.level) };
        if (event.type === 'sessions' && s.hiddenIds.length > 0) {
          const sessions = event.sessions.filter((x) => !s.hiddenIds.includes(x.id));
          return reduceEvent(s, { type: 'sessions', sessions }, limits);
        }
        if (event.type !== 'connection') return reduceEvent(s, event, limits);
        // The link dropped (the host retries) or came back (it resends the session list).
        if (event.state === 'disconnected')
          return { connection: 'reconnecting', connectionError: null };
        return s.catalog ? { connection: 'connected', connectionError: null } : {};
      }),
    setConnection: (connection, error = null, hostKind) =>
      set((s) => ({ connection, connectionError: error, hostKind: hostKind ?? s.hostKind })),
    setCatalog: (catalog, error = null) => set({ catalog, catalogError: error }),
    openSession: (info) => set((s) => openSession(s, info)),
    hideSession: (id) =>
      set((s) => ({
        ...applySessions(
          s,
          s.sessions.filter((x) => x.id !== id),
        ),
        hiddenIds: [...s.hiddenIds.filter((x) => x !== id), id].slice(-HIDDEN_IDS_KEPT),
      })),
    setActive: (activeId) => set({ activeId }),
    selectRequest: (sessionId, requestId) =>
      set((s) => ({
        selection: {
          ...s.selection,
          [sessionId]: { ...(s.selection[sessionId] ?? NO_SELECTION), requestId },
        },
      })),
    selectFrame: (sessionId, frameSeq) =>
      set((s) => ({
        selection: {
          ...s.selection,
          [sessionId]: { ...(s.selection[sessionId] ?? NO_SELECTION), frameSeq },
        },
      })),
    setRecovery: (sessionId, recovery) =>
      set((s) => {
        const data = s.bySession[sessionId];
        if (!data) return {};
        return { bySession: { ...s.bySession, [sessionId]: { ...data, recovery } } };
      }),
    notify: (text, level = 'error') =>
      set((s) => ({ notices: pushNotice(s.notices, text, level) })),
    setImported: (imported) => set({ imported }),
    dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  }));
}

function pushNotice(notices: Notice[], text: string, level: Notice['level']): Notice[] {
  noticeSeq += 1;
  return [...notices, { id: noticeSeq, level, text }].slice(-NOTICES_KEPT);
}

export function selectionOf(state: AppState, sessionId: string): SessionSelection {
  return state.selection[sessionId] ?? NO_SELECTION;
}
