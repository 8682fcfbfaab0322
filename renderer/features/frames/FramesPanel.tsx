/**
 * FramesPanel: the session's frame log, newest at the bottom, virtualized. Filters by
 * direction, kind and method/id text; highlights pollution, invalid and oversize frames.
 * Fed by the store's capped frame list (the parent); clicking a row calls `onOpen(seq)`,
 * and the parent shows FrameViewer for it. Given `search` (SessionFramesPanel), "in payloads"
 * turns the text into a search the host runs over every frame it holds: the hits, each with
 * its match in context, replace the list. Given `view`, Clear and Preserve log (log-view.ts).
 */
import { memo, type ReactElement, type ReactNode, useCallback, useMemo, useState } from 'react';
import type { FrameSearchHit, FrameSummary } from '../../../shared/frames.js';
import { formatCount, plural } from '../../components/format.js';
import { LogList } from '../../components/LogList.js';
import './frames.css';
import { FrameLeadColumns } from './FrameLeadColumns.js';
import { formatBytes, formatExactBytes, singleLine } from './format.js';
import {
  EMPTY_FILTER,
  FRAME_KINDS,
  type FrameFilter,
  type FrameKindOrOversize,
  filterFrames,
  frameMatcher,
  isFilterActive,
  isProblemKind,
} from './frame-filter.js';
import { HitRow, hitKey, searchCount } from './SearchHits.js';
import type { PayloadQuery, PayloadSearchState } from './usePayloadSearch.js';

export interface FramesPanelProps {
  frames: readonly FrameSummary[];
  onOpen(seq: number): void;
  selectedSeq?: number | null;
  /** A payload search the host runs (a session's panel; absent in a bare panel). */
  search?: {
    state: PayloadSearchState;
    setQuery(q: PayloadQuery | null): void;
  };
  /** Clear and Preserve log (a session's panel). */
  view?: {
    /** The first seq shown (Clear, or the latest initialize without Preserve log). */
    floor: number;
    preserve: boolean;
    onClear(): void;
    onShowAll(): void;
    onPreserve(preserve: boolean): void;
  };
}

const ROW_HEIGHT = 22;

function frameKey(frame: FrameSummary): number {
  return frame.seq;
}

function sizeCell(frame: FrameSummary): { text: string; title: string } {
  if (frame.kind === 'oversize' && frame.bytes === 0) {
    return { text: 'over max', title: 'Larger than maxFrameBytes; the bytes were discarded' };
  }
  return { text: formatBytes(frame.bytes), title: formatExactBytes(frame.bytes) };
}

interface RowProps {
  frame: FrameSummary;
  odd: boolean;
  selected: boolean;
  onOpen(seq: number): void;
}

const FrameRow = memo(function FrameRow({ frame, odd, selected, onOpen }: RowProps): ReactElement {
  const problem = isProblemKind(frame.kind);
  const size = sizeCell(frame);
  const preview = singleLine(frame.preview);
  const classes = ['ps-frame-row'];
  if (odd) classes.push('ps-frame-row--alt');
  if (problem) classes.push('ps-frame-row--problem', `ps-frame-row--${frame.kind}`);
  if (selected) classes.push('ps-frame-row--selected');
  return (
    <button
      type="button"
      className={classes.join(' ')}
      data-testid="frame-row"
      data-seq={frame.seq}
      data-kind={frame.kind}
      data-dir={frame.dir}
      aria-current={selected ? 'true' : undefined}
      onClick={() => onOpen(frame.seq)}
    >
      <FrameLeadColumns frame={frame} />
      <span className="ps-col-size" title={size.title}>
        {size.text}
      </span>
      <span className="ps-col-preview" title={frame.problem}>
        {frame.problem ? (
          <span className="ps-frame-problem">{singleLine(frame.problem, 120)}</span>
        ) : null}
        {preview}
      </span>
    </button>
  );
});

export const FramesPanel = memo(function FramesPanel({
  frames,
  onOpen,
  selectedSeq = null,
  search,
  view,
}: FramesPanelProps): ReactElement {
  const [filter, setFilter] = useState<FrameFilter>(EMPTY_FILTER);
  const [payloads, setPayloads] = useState(false);
  const [caseSensitive, setCaseSensitive] = useState(false);
  const floor = view?.floor ?? 0;
  const visible = useMemo(
    () => (floor > 0 ? frames.filter((f) => f.seq >= floor) : frames),
    [frames, floor],
  );
  const searching = search !== undefined && payloads && filter.text.trim() !== '';
  const shown = useMemo(
    () => (searching ? visible : filterFrames(visible, filter)),
    [visible, filter, searching],
  );
  // Hits pass direction, kind and Clear; the text is the search's.
  const hits = useMemo(() => {
    if (!searching || !search) return [];
    const keep = frameMatcher({ ...filter, text: '' });
    return search.state.hits.filter(
      (h) => h.seq >= floor && keep({ ...h, offset: null, preview: '', held: true }),
    );
  }, [searching, search, filter, floor]);
  const runSearch = (text: string, payloadMode: boolean, matchCase: boolean): void => {
    search?.setQuery(payloadMode && text.trim() !== '' ? { text, caseSensitive: matchCase } : null);
  };

  const renderHit = useCallback(
    (hit: FrameSearchHit): ReactNode => (
      <HitRow hit={hit} selected={hit.seq === selectedSeq} onOpen={onOpen} />
    ),
    [onOpen, selectedSeq],
  );

  const renderRow = useCallback(
    // Stripes follow seq, not position, so they do not flicker as the capped list slides.
    (frame: FrameSummary): ReactNode => (
      <FrameRow
        frame={frame}
        odd={frame.seq % 2 === 1}
        selected={frame.seq === selectedSeq}
        onOpen={onOpen}
      />
    ),
    [onOpen, selectedSeq],
  );

  const update = (patch: Partial<FrameFilter>): void => {
    setFilter((prev) => ({ ...prev, ...patch }));
    if (patch.text !== undefined) runSearch(patch.text, payloads, caseSensitive);
  };
  const hidden = frames.length - visible.length;

  return (
    <section className="ps-log" data-testid="frames-log" aria-label="Frames log">
      <div className="ps-log-toolbar">
        <select
          aria-label="Direction"
          value={filter.dir}
          onChange={(e) => update({ dir: e.target.value as FrameFilter['dir'] })}
        >
          <option value="all">both directions</option>
          <option value="out">→ out (client → server)</option>
          <option value="in">← in (server → client)</option>
        </select>
        <select
          aria-label="Kind"
          value={filter.kind}
          onChange={(e) => update({ kind: e.target.value as FrameKindOrOversize | 'all' })}
        >
          <option value="all">all kinds</option>
          {FRAME_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
        <input
          type="search"
          aria-label={searching || payloads ? 'Search in payloads' : 'Search method or id'}
          placeholder={payloads ? 'text in payloads' : 'method, id or #seq'}
          data-testid="frames-filter"
          value={filter.text}
          onChange={(e) => update({ text: e.target.value })}
        />
        {search ? (
          <>
            <label
              className="ps-log-check"
              title="Search the frames' bytes (every frame the host holds, not only this list), on the host side"
            >
              <input
                type="checkbox"
                data-testid="frames-search-payloads"
                checked={payloads}
                onChange={(e) => {
                  setPayloads(e.target.checked);
                  runSearch(filter.text, e.target.checked, caseSensitive);
                }}
              />
              in payloads
            </label>
            {payloads ? (
              <label className="ps-log-check" title="Match case (ASCII letters)">
                <input
                  type="checkbox"
                  data-testid="frames-search-case"
                  checked={caseSensitive}
                  onChange={(e) => {
                    setCaseSensitive(e.target.checked);
                    runSearch(filter.text, payloads, e.target.checked);
                  }}
                />
                Aa
              </label>
            ) : null}
          </>
        ) : null}
        {view ? (
          <>
            <button
              type="button"
              className="small"
              data-testid="frames-clear"
              title="Hide the frames so far (the host keeps them: search and export still see them)"
              onClick={view.onClear}
            >
              Clear
            </button>
            <label
              className="ps-log-check"
              title="Keep what came before when a new initialize starts the session over (off: the list starts afresh, as DevTools does on a page load)"
            >
              <input
                type="checkbox"
                data-testid="frames-preserve"
                checked={view.preserve}
                onChange={(e) => view.onPreserve(e.target.checked)}
              />
              Preserve log
            </label>
          </>
        ) : null}
        <span
          className="ps-log-count"
          data-testid="frames-count"
          data-status={searching ? search?.state.status : undefined}
          title={
            searching && search && search.state.previewOnly > 0
              ? `${formatCount(search.state.previewOnly)} frames had only their first bytes left to search (their bytes were dropped by the frame store's budget)`
              : undefined
          }
        >
          {searching && search
            ? searchCount(search.state, hits.length)
            : isFilterActive(filter)
              ? `${shown.length.toLocaleString()} of ${visible.length.toLocaleString()}`
              : plural(visible.length, 'frame')}
          {hidden > 0 && view ? (
            <>
              {' · '}
              <button
                type="button"
                className="link"
                data-testid="frames-show-all"
                title="Show the frames Clear (or a new initialize) hid"
                onClick={view.onShowAll}
              >
                {formatCount(hidden)} hidden
              </button>
            </>
          ) : null}
        </span>
      </div>
      <div className="ps-frame-row ps-frames-header" aria-hidden="true">
        <span className="ps-col-time">time</span>
        <span className="ps-col-dir">dir</span>
        <span className="ps-col-kind">kind</span>
        <span className="ps-col-id">id</span>
        <span className="ps-col-method">method</span>
        <span className="ps-col-size">size</span>
        <span className="ps-col-preview">preview</span>
      </div>
      {searching && search ? (
        <LogList
          items={hits}
          empty={
            hits.length > 0
              ? null
              : search.state.status === 'done' || search.state.status === 'capped'
                ? 'No frame holds this text.'
                : search.state.status === 'error'
                  ? `Search failed: ${search.state.error ?? ''}`
                  : 'Searching…'
          }
          rowHeight={ROW_HEIGHT}
          renderRow={renderHit}
          getKey={hitKey}
        />
      ) : (
        <LogList
          items={shown}
          empty={
            shown.length > 0
              ? null
              : frames.length === 0
                ? 'No frames yet.'
                : visible.length === 0
                  ? 'Cleared: new frames appear here.'
                  : 'No frames match the filter.'
          }
          rowHeight={ROW_HEIGHT}
          renderRow={renderRow}
          getKey={frameKey}
          keyByPosition
          stickToBottom
        />
      )}
    </section>
  );
});
