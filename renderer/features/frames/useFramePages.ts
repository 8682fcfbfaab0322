/**
 * useFramePages: loads one frame's bytes page by page for FrameViewer, following the plan in
 * paging.ts (whole if small, else head + tail, then "load more" up to the cap).
 * Fed by the `fetchPage` prop (the host's `frame:page` call); errors arrive as Result data
 * and are shown, never thrown. A newer frame (or unmount) discards answers still in flight.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { FramePage, FrameSummary } from '../../../shared/frames.js';
import { err, type Result } from '../../../shared/result.js';
import { appendPage, headEnd, type LoadedFrame, nextPage, planHead, planTail } from './paging.js';

export type FetchPage = (offset: number, length: number) => Promise<Result<FramePage>>;
export type ViewerState = 'loading' | 'ready' | 'error';

export interface FramePages {
  state: ViewerState;
  error: string | null;
  frame: LoadedFrame | null;
  loadingMore: boolean;
  loadMore(): void;
}

interface Loaded {
  state: ViewerState;
  error: string | null;
  frame: LoadedFrame | null;
}

const LOADING: Loaded = { state: 'loading', error: null, frame: null };

/** One page, with a rejected promise turned into an error like any other. */
async function fetchSafely(
  fetchPage: FetchPage,
  offset: number,
  length: number,
): Promise<Result<FramePage>> {
  try {
    return await fetchPage(offset, length);
  } catch (cause) {
    return err('fetch-failed', cause instanceof Error ? cause.message : String(cause));
  }
}

function describe(error: { code: string; message: string }): string {
  return error.message ? `${error.message} (${error.code})` : error.code;
}

export function useFramePages(summary: FrameSummary, fetchPage: FetchPage): FramePages {
  const fetchRef = useRef(fetchPage);
  useEffect(() => {
    fetchRef.current = fetchPage;
  });
  const [loaded, setLoaded] = useState<Loaded>(LOADING);
  const [loadingMore, setLoadingMore] = useState(false);
  // Bumped per frame: an answer for an older generation is dropped.
  const generation = useRef(0);
  const { seq, held, bytes } = summary;

  useEffect(() => {
    const gen = ++generation.current;
    const current = (): boolean => generation.current === gen;
    setLoadingMore(false);
    if (!held) {
      setLoaded({
        state: 'error',
        error: `Frame #${seq}'s bytes are no longer held in main (dropped to stay within the frame store's budget); only its summary remains.`,
        frame: null,
      });
      return;
    }
    setLoaded(LOADING);
    const run = async (): Promise<void> => {
      const head = planHead(bytes);
      const first = await fetchSafely(fetchRef.current, head.offset, head.length);
      if (!current()) return;
      if (!first.ok) {
        setLoaded({ state: 'error', error: describe(first.error), frame: null });
        return;
      }
      const page = first.value;
      let frame: LoadedFrame = {
        totalBytes: page.totalBytes,
        sha256: page.sha256,
        head: { offset: page.offset, length: page.length, text: page.text },
        tail: null,
      };
      const tail = planTail(page.totalBytes, headEnd(frame));
      if (tail) {
        const last = await fetchSafely(fetchRef.current, tail.offset, tail.length);
        if (!current()) return;
        if (!last.ok) {
          setLoaded({ state: 'error', error: describe(last.error), frame });
          return;
        }
        const t = last.value;
        frame = { ...frame, tail: { offset: t.offset, length: t.length, text: t.text } };
      }
      setLoaded({ state: 'ready', error: null, frame });
    };
    void run();
    return () => {
      generation.current += 1;
    };
  }, [seq, held, bytes]);

  const loadMore = useCallback((): void => {
    const frame = loaded.frame;
    const request = frame ? nextPage(frame) : null;
    if (!frame || !request || loadingMore) return;
    const gen = generation.current;
    setLoadingMore(true);
    const run = async (): Promise<void> => {
      const result = await fetchSafely(fetchRef.current, request.offset, request.length);
      if (generation.current !== gen) return;
      setLoadingMore(false);
      if (!result.ok) {
        setLoaded((prev) => ({ ...prev, state: 'error', error: describe(result.error) }));
        return;
      }
      const p = result.value;
      setLoaded((prev) =>
        prev.frame
          ? {
              ...prev,
              frame: appendPage(prev.frame, { offset: p.offset, length: p.length, text: p.text }),
            }
          : prev,
      );
    };
    void run();
  }, [loaded.frame, loadingMore]);

  return { ...loaded, loadingMore, loadMore };
}
