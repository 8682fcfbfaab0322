/**
 * Loads one line of a request (its request or its response) for the detail pane and the
 * composer's answer: whole when small, else only its first page (exchange.ts decides). Fed by
 * the host's `frame:page`; a newer seq or unmount drops answers still in flight. A frame the
 * store no longer holds reads as `evicted`, never as an error.
 */
import { useEffect, useRef, useState } from 'react';
import type { FramePage } from '../../../shared/frames';
import type { Result } from '../../../shared/result';
import { useHost } from '../../app/host-context';
import { firstFetch, refetchWhole } from './exchange';

export type FrameText =
  | { state: 'none' }
  | { state: 'loading'; seq: number }
  | { state: 'evicted'; seq: number }
  | { state: 'error'; seq: number; message: string }
  | {
      state: 'ready';
      seq: number;
      text: string;
      /** Bytes of the line the text covers (from offset 0), and of the whole line. */
      loadedBytes: number;
      totalBytes: number;
      complete: boolean;
    };

const NONE: FrameText = { state: 'none' };

/**
 * `seq`: the line's seq (null: no line). `knownBytes`: its size when known (the record's).
 * `held`: its summary's `held` (undefined when the summary is not in the log).
 */
export function useFrameText(
  sessionId: string,
  seq: number | null,
  knownBytes: number | null,
  held: boolean | undefined,
): FrameText {
  const host = useHost();
  const [loaded, setLoaded] = useState<FrameText>(NONE);
  // knownBytes only sizes the first fetch: a change of it alone (the record's size arriving
  // after its seq) must not fetch the line again.
  const knownRef = useRef(knownBytes);
  knownRef.current = knownBytes;

  useEffect(() => {
    if (seq === null) {
      setLoaded(NONE);
      return;
    }
    if (held === false) {
      setLoaded({ state: 'evicted', seq });
      return;
    }
    let live = true;
    setLoaded({ state: 'loading', seq });
    const page = async (offset: number, length: number): Promise<Result<FramePage>> => {
      try {
        return await host.invoke('frame:page', { sessionId, seq, offset, length });
      } catch (e) {
        return {
          ok: false,
          error: { code: 'EHOST', message: e instanceof Error ? e.message : String(e) },
        };
      }
    };
    const run = async (): Promise<void> => {
      const first = firstFetch(knownRef.current);
      let r = await page(first.offset, first.length);
      if (r.ok) {
        const whole = refetchWhole(r.value);
        if (whole !== null && live) r = await page(0, whole);
      }
      if (!live) return;
      if (!r.ok) {
        setLoaded(
          r.error.code === 'ENOFRAME'
            ? { state: 'evicted', seq }
            : { state: 'error', seq, message: `${r.error.message} (${r.error.code})` },
        );
        return;
      }
      const p = r.value;
      setLoaded({
        state: 'ready',
        seq,
        text: p.text,
        loadedBytes: p.length,
        totalBytes: p.totalBytes,
        complete: p.offset === 0 && p.length >= p.totalBytes,
      });
    };
    void run();
    return () => {
      live = false;
    };
  }, [host, sessionId, seq, held]);

  // The render between a new seq and its effect: never show the previous line's text.
  if (seq === null) return NONE;
  if (loaded.state === 'none' || loaded.seq !== seq) return { state: 'loading', seq };
  return loaded;
}
