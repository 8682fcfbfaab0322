/**
 * usePayloadSearch: a search in the payloads of a session's frames, run by the host over its
 * bounded frame store (`frame:search`), page by page until the newest frame or MAX_HITS. A new
 * query (or closing the search) stops the old one: the hook asks for no further page, and the
 * host stops a page still running once the new search begins (same session, new searchId).
 *
 * Owns: the hits of each session's latest search (`searchHits`), so the frame viewer can open
 * a hit older than the frames the list keeps. Fed by: FramesPanel's search box (through
 * SessionFramesPanel). Errors arrive as data and are shown, never thrown.
 */
import { useEffect, useState } from 'react';
import type { FrameSearchHit, FrameSearchPage, FrameSummary } from '../../../shared/frames';
import type { HostApi } from '../../../shared/host-api';
import type { Result } from '../../../shared/result';

export interface PayloadQuery {
  text: string;
  caseSensitive: boolean;
}

export type SearchStatus = 'idle' | 'waiting' | 'searching' | 'done' | 'capped' | 'error';

export interface PayloadSearchState {
  status: SearchStatus;
  hits: FrameSearchHit[];
  scannedFrames: number;
  scannedBytes: number;
  elapsedMs: number;
  /** Frames searched by their preview only (their bytes were dropped by the store's budget). */
  previewOnly: number;
  /** The frames the host's store lists (searched: all of them, oldest first). */
  firstSeq: number;
  lastSeq: number;
  error: string | null;
}

export const IDLE_SEARCH: PayloadSearchState = {
  status: 'idle',
  hits: [],
  scannedFrames: 0,
  scannedBytes: 0,
  elapsedMs: 0,
  previewOnly: 0,
  firstSeq: 0,
  lastSeq: 0,
  error: null,
};

/** Hits kept (a search stops there and says so). */
export const MAX_HITS = 1000;
const PAGE_HITS = 200;
/** Typing settles before a search starts. */
const DEBOUNCE_MS = 250;

/** The hits of each session's latest search, by seq (what the frame viewer may open). */
const latestHits = new Map<string, ReadonlyMap<number, FrameSearchHit>>();
const HIT_SESSIONS_KEPT = 20;

function remember(sessionId: string, hits: readonly FrameSearchHit[]): void {
  latestHits.delete(sessionId);
  latestHits.set(sessionId, new Map(hits.map((h) => [h.seq, h])));
  if (latestHits.size > HIT_SESSIONS_KEPT)
    latestHits.delete(latestHits.keys().next().value as string);
}

/** A search hit as a frame summary (its snippet as the preview). */
export function hitSummary(h: FrameSearchHit): FrameSummary {
  return {
    seq: h.seq,
    dir: h.dir,
    t: h.t,
    offset: null,
    bytes: h.bytes,
    kind: h.kind,
    ...(h.id === undefined ? {} : { id: h.id }),
    ...(h.method === undefined ? {} : { method: h.method }),
    preview: h.text,
    held: h.previewOnly !== true,
  };
}

/** The summary of frame `seq` from the session's latest search, if it found that frame. */
export function searchedFrame(sessionId: string, seq: number): FrameSummary | undefined {
  const hit = latestHits.get(sessionId)?.get(seq);
  return hit ? hitSummary(hit) : undefined;
}

let searchCounter = 0;

export function usePayloadSearch(
  host: HostApi | null,
  sessionId: string | undefined,
  query: PayloadQuery | null,
): PayloadSearchState {
  const [state, setState] = useState<PayloadSearchState>(IDLE_SEARCH);
  const text = query?.text.trim() ?? '';
  const caseSensitive = query?.caseSensitive ?? false;

  useEffect(() => {
    if (!host || !sessionId || text === '') {
      setState(IDLE_SEARCH);
      return;
    }
    let stopped = false;
    searchCounter += 1;
    const searchId = `s${Date.now().toString(36)}-${searchCounter}`;
    setState({ ...IDLE_SEARCH, status: 'waiting' });
    const run = async (): Promise<void> => {
      let acc: PayloadSearchState = { ...IDLE_SEARCH, status: 'searching' };
      let from: FrameSearchPage['next'] = null;
      for (;;) {
        const r: Result<FrameSearchPage> = await host
          .invoke('frame:search', {
            sessionId,
            searchId,
            query: text,
            caseSensitive,
            maxHits: Math.min(PAGE_HITS, MAX_HITS - acc.hits.length),
            ...(from ? { from } : {}),
          })
          .catch((e: unknown) => ({
            ok: false as const,
            error: { code: 'EHOST', message: e instanceof Error ? e.message : String(e) },
          }));
        if (stopped) return;
        if (!r.ok) {
          setState({ ...acc, status: 'error', error: r.error.message });
          return;
        }
        const p: FrameSearchPage = r.value;
        const hits = [...acc.hits, ...p.hits];
        acc = {
          ...acc,
          hits,
          scannedFrames: acc.scannedFrames + p.scannedFrames,
          scannedBytes: acc.scannedBytes + p.scannedBytes,
          elapsedMs: acc.elapsedMs + p.elapsedMs,
          previewOnly: acc.previewOnly + p.previewOnly,
          firstSeq: acc.firstSeq || p.firstSeq,
          lastSeq: p.lastSeq,
        };
        remember(sessionId, hits);
        const capped = hits.length >= MAX_HITS && p.next !== null;
        const done = p.next === null || p.superseded;
        acc = { ...acc, status: capped ? 'capped' : done ? 'done' : 'searching' };
        setState(acc);
        if (capped || done) return;
        from = p.next;
      }
    };
    const timer = setTimeout(() => void run(), DEBOUNCE_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [host, sessionId, text, caseSensitive]);

  return state;
}
