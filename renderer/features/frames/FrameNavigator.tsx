/**
 * FrameNavigator: the frame viewer's way into a large frame — go to a byte offset, or find a
 * text inside the frame (the host searches its bytes, a page of matches at a time, `frame:find`)
 * and jump to a match. A jump shows a 64 KiB window there (frame-window.ts), with the match
 * marked, previous / next pages and a way back to the head and tail view.
 * Fed by FrameViewer: `fetchPage` (frame:page) and `find` (frame:find; absent: no search).
 */
import { type ReactElement, useState } from 'react';
import type { FrameFindHit, FrameFindPage } from '../../../shared/frames.js';
import type { Result } from '../../../shared/result.js';
import { utf8Bytes } from '../../../shared/result-audit.js';
import { formatBytes, formatExactBytes } from './format.js';
import {
  BEFORE_BYTES,
  charsForBytes,
  type FrameWindow,
  neighbours,
  parseOffset,
  WINDOW_BYTES,
} from './frame-window.js';
import type { FetchPage } from './useFramePages.js';

export type FindInFrame = (
  query: string,
  caseSensitive: boolean,
  from: number,
) => Promise<Result<FrameFindPage>>;

interface Found {
  query: string;
  caseSensitive: boolean;
  hits: FrameFindHit[];
  next: number | null;
  scannedBytes: number;
}

/** Matches kept in the list (more are a click away, a page at a time). */
const FOUND_KEPT = 500;

export function useFrameWindow(
  fetchPage: FetchPage,
  totalBytes: number,
): {
  window: FrameWindow | null;
  error: string | null;
  jump(offset: number, matchBytes?: number): void;
  close(): void;
} {
  const [window, setWindow] = useState<FrameWindow | null>(null);
  const [error, setError] = useState<string | null>(null);
  const jump = (offset: number, matchBytes = 0): void => {
    const at = Math.min(Math.max(0, offset), Math.max(0, totalBytes - 1));
    const from = matchBytes > 0 ? Math.max(0, at - BEFORE_BYTES) : at;
    void (async () => {
      const [before, page] = await Promise.all([
        from < at ? fetchPage(from, at - from) : Promise.resolve(null),
        fetchPage(at, WINDOW_BYTES),
      ]);
      if (!page.ok) {
        setError(page.error.message);
        return;
      }
      setError(null);
      const p = page.value;
      setWindow({
        offset: p.offset,
        length: p.length,
        totalBytes: p.totalBytes,
        text: p.text,
        before: before?.ok ? before.value.text : '',
        matchChars: matchBytes > 0 ? charsForBytes(p.text, matchBytes) : 0,
      });
    })();
  };
  return { window, error, jump, close: () => setWindow(null) };
}

export function FrameNavigator({
  totalBytes,
  find,
  onJump,
}: {
  totalBytes: number;
  find?: FindInFrame;
  onJump(offset: number, matchBytes?: number): void;
}): ReactElement {
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [found, setFound] = useState<Found | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const offset = parseOffset(typed);

  const search = async (from: number, base: Found | null): Promise<void> => {
    if (!find || query === '') return;
    setBusy(true);
    const r = await find(query, caseSensitive, from);
    setBusy(false);
    if (!r.ok) {
      setProblem(r.error.message);
      return;
    }
    setProblem(null);
    const prev = base ?? { query, caseSensitive, hits: [], next: 0, scannedBytes: 0 };
    const hits = [...prev.hits, ...r.value.hits].slice(0, FOUND_KEPT);
    const next = hits.length >= FOUND_KEPT ? null : r.value.next;
    setFound({ ...prev, hits, next, scannedBytes: prev.scannedBytes + r.value.scannedBytes });
    if (!base && r.value.hits[0]) onJump(r.value.hits[0].offset, utf8Bytes(query));
  };

  return (
    <div className="ps-fv-nav" data-testid="frame-navigator">
      <form
        className="ps-fv-nav-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (offset !== null) onJump(offset);
        }}
      >
        <label htmlFor="fv-offset">Go to byte</label>
        <input
          id="fv-offset"
          data-testid="frame-goto"
          inputMode="numeric"
          placeholder={`0 – ${formatExactBytes(Math.max(0, totalBytes - 1))}`}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" disabled={offset === null || offset >= totalBytes}>
          Go
        </button>
      </form>
      {find ? (
        <form
          className="ps-fv-nav-row"
          onSubmit={(e) => {
            e.preventDefault();
            void search(0, null);
          }}
        >
          <label htmlFor="fv-find">Find in frame</label>
          <input
            id="fv-find"
            data-testid="frame-find"
            placeholder="text (searched on the host)"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setFound(null);
            }}
          />
          <label className="ps-fv-check" title="Match case (ASCII letters)">
            <input
              type="checkbox"
              checked={caseSensitive}
              onChange={(e) => {
                setCaseSensitive(e.target.checked);
                setFound(null);
              }}
            />
            Aa
          </label>
          <button type="submit" data-testid="frame-find-run" disabled={query === '' || busy}>
            {busy ? 'Finding…' : 'Find'}
          </button>
          {found ? (
            <span
              className="ps-fv-note"
              data-testid="frame-find-count"
              data-hits={found.hits.length}
            >
              {found.hits.length === 0 && found.next === null
                ? 'not in this frame'
                : `${found.hits.length.toLocaleString('en-US')}${found.next === null ? '' : '+'} match${found.hits.length === 1 ? '' : 'es'} · ${formatBytes(found.scannedBytes)} searched`}
            </span>
          ) : null}
          {problem ? <span className="ps-fv-note">{problem}</span> : null}
        </form>
      ) : null}
      {found && found.hits.length > 0 ? (
        <ol className="ps-fv-hits" data-testid="frame-find-hits">
          {found.hits.map((h) => (
            <li key={h.offset}>
              <button
                type="button"
                data-offset={h.offset}
                onClick={() => onJump(h.offset, utf8Bytes(found.query))}
              >
                <span className="ps-fv-hit-at">@{h.offset.toLocaleString('en-US')}</span>
                <span className="ps-fv-hit-text">
                  {h.text.slice(0, h.matchStart)}
                  <mark>{h.text.slice(h.matchStart, h.matchStart + h.matchLength)}</mark>
                  {h.text.slice(h.matchStart + h.matchLength)}
                </span>
              </button>
            </li>
          ))}
          {found.next !== null ? (
            <li>
              <button
                type="button"
                disabled={busy}
                onClick={() => void search(found.next ?? 0, found)}
              >
                More matches (from byte {found.next.toLocaleString('en-US')})
              </button>
            </li>
          ) : null}
        </ol>
      ) : null}
    </div>
  );
}

/** A frame's window: the bytes at an offset, a match marked, and its neighbours. */
export function FrameWindowView({
  w,
  onJump,
  onClose,
}: {
  w: FrameWindow;
  onJump(offset: number): void;
  onClose(): void;
}): ReactElement {
  const { prev, next } = neighbours(w);
  return (
    <div className="ps-fv-window" data-testid="frame-window" data-offset={w.offset}>
      <div className="ps-fv-gap">
        <span>
          bytes {w.offset.toLocaleString('en-US')} – {(w.offset + w.length).toLocaleString('en-US')}{' '}
          of {w.totalBytes.toLocaleString('en-US')}
        </span>
        <button
          type="button"
          disabled={prev === null}
          onClick={() => prev !== null && onJump(prev)}
        >
          ← previous {formatBytes(WINDOW_BYTES)}
        </button>
        <button
          type="button"
          disabled={next === null}
          onClick={() => next !== null && onJump(next)}
        >
          next {formatBytes(WINDOW_BYTES)} →
        </button>
        <button type="button" onClick={onClose}>
          Back to start and end
        </button>
      </div>
      <pre className="ps-fv-text">
        {w.before ? <span className="ps-fv-before">{w.before}</span> : null}
        {w.matchChars > 0 ? (
          <mark data-testid="frame-window-match">{w.text.slice(0, w.matchChars)}</mark>
        ) : null}
        {w.text.slice(w.matchChars)}
      </pre>
    </div>
  );
}
