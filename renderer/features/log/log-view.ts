/**
 * What the frames and requests lists of each session show, as DevTools' Network panel does:
 * Clear hides what came so far (the host keeps it: a payload search, an export, a reload still
 * see it), and without Preserve log a new `initialize` — the server or the host starting over,
 * as a page load does — starts the lists afresh.
 *
 * Owns: per session, where Clear cut each list and whether to preserve the log. Fed by: the
 * lists' toolbars. Listens: FramesPanel and RequestsTable, through `useLogView` and the pure
 * floors below. A view is the renderer's own (a reload forgets it).
 */
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import type { FrameSummary } from '../../../shared/frames';
import type { RequestRecord } from '../../../shared/requests';

export interface LogView {
  /** Frames with a lower seq are hidden (Clear). */
  framesFrom: number;
  /** Requests sent before this session time are hidden (Clear). */
  requestsFrom: number;
  /** Keep what came before a new initialize. */
  preserve: boolean;
}

export const DEFAULT_VIEW: LogView = {
  framesFrom: 0,
  requestsFrom: Number.NEGATIVE_INFINITY,
  preserve: false,
};

interface LogViews {
  views: Readonly<Record<string, LogView>>;
  update(sessionId: string, patch: Partial<LogView>): void;
}

/** Sessions whose view is kept (the oldest go first: a closed tab's view is no use). */
const VIEWS_KEPT = 100;

export const logViews = createStore<LogViews>((set) => ({
  views: {},
  update: (sessionId, patch) =>
    set((s) => {
      const { [sessionId]: was, ...rest } = s.views;
      const ids = Object.keys(rest);
      const kept = ids.length >= VIEWS_KEPT ? ids.slice(ids.length - VIEWS_KEPT + 1) : ids;
      const next: Record<string, LogView> = {};
      for (const id of kept) next[id] = rest[id];
      next[sessionId] = { ...(was ?? DEFAULT_VIEW), ...patch };
      return { views: next };
    }),
}));

export function useLogView(sessionId: string | undefined): LogView {
  return useStore(logViews, (s) => (sessionId ? s.views[sessionId] : undefined) ?? DEFAULT_VIEW);
}

export function updateLogView(sessionId: string, patch: Partial<LogView>): void {
  logViews.getState().update(sessionId, patch);
}

/** The seq of the newest `initialize` sent (0: none in the list). */
export function latestInitializeSeq(frames: readonly FrameSummary[]): number {
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i];
    if (f.dir === 'out' && f.method === 'initialize' && f.kind === 'request') return f.seq;
  }
  return 0;
}

/** The first frame seq the list shows. */
export function framesFloor(view: LogView, frames: readonly FrameSummary[]): number {
  return view.preserve ? view.framesFrom : Math.max(view.framesFrom, latestInitializeSeq(frames));
}

/** When the newest `initialize` was sent (-Infinity: none). */
export function latestInitializeAt(requests: Iterable<RequestRecord>): number {
  let at = Number.NEGATIVE_INFINITY;
  for (const r of requests) if (r.method === 'initialize' && r.sentAt > at) at = r.sentAt;
  return at;
}

/** The first send time the requests list shows. */
export function requestsFloor(view: LogView, requests: Iterable<RequestRecord>): number {
  return view.preserve
    ? view.requestsFrom
    : Math.max(view.requestsFrom, latestInitializeAt(requests));
}
