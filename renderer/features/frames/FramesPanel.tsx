/**
 * FramesPanel: the session's frame log, newest at the bottom, virtualized. Filters by
 * direction, kind and method/id text; highlights pollution, invalid and oversize frames.
 * Fed by the store's capped frame list (the parent); clicking a row calls `onOpen(seq)`,
 * and the parent shows FrameViewer for it.
 */
import { memo, type ReactElement, type ReactNode, useCallback, useMemo, useState } from 'react';
import type { FrameSummary } from '../../../shared/frames.js';
import { plural } from '../../components/format.js';
import { LogList } from '../../components/LogList.js';
import './frames.css';
import {
  directionArrow,
  directionLabel,
  formatBytes,
  formatExactBytes,
  formatId,
  formatTime,
  singleLine,
} from './format.js';
import {
  EMPTY_FILTER,
  FRAME_KINDS,
  type FrameFilter,
  type FrameKindOrOversize,
  filterFrames,
  isFilterActive,
  isProblemKind,
} from './frame-filter.js';

export interface FramesPanelProps {
  frames: readonly FrameSummary[];
  onOpen(seq: number): void;
  selectedSeq?: number | null;
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
      <span className="ps-col-time">{formatTime(frame.t)}</span>
      <span className="ps-col-dir" title={directionLabel(frame.dir)}>
        {directionArrow(frame.dir)}
      </span>
      <span className="ps-col-kind">{frame.kind}</span>
      <span className="ps-col-id">{formatId(frame.id)}</span>
      <span className="ps-col-method">{frame.method ?? ''}</span>
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
}: FramesPanelProps): ReactElement {
  const [filter, setFilter] = useState<FrameFilter>(EMPTY_FILTER);
  const shown = useMemo(() => filterFrames(frames, filter), [frames, filter]);

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

  const update = (patch: Partial<FrameFilter>): void =>
    setFilter((prev) => ({ ...prev, ...patch }));

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
          aria-label="Search method or id"
          placeholder="method, id or #seq"
          value={filter.text}
          onChange={(e) => update({ text: e.target.value })}
        />
        <span className="ps-log-count">
          {isFilterActive(filter)
            ? `${shown.length.toLocaleString()} of ${frames.length.toLocaleString()}`
            : plural(frames.length, 'frame')}
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
      <LogList
        items={shown}
        empty={
          shown.length > 0
            ? null
            : frames.length === 0
              ? 'No frames yet.'
              : 'No frames match the filter.'
        }
        rowHeight={ROW_HEIGHT}
        renderRow={renderRow}
        getKey={frameKey}
        keyByPosition
        stickToBottom
      />
    </section>
  );
});
