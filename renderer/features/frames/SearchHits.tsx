/**
 * The rows of a payload search (FramesPanel's search mode): each hit with its match in context,
 * marked, and the words for what the search did.
 */
import { memo, type ReactElement } from 'react';
import type { FrameSearchHit } from '../../../shared/frames.js';
import { formatCount, formatBytes as formatSize } from '../../components/format';
import { FrameLeadColumns } from './FrameLeadColumns.js';
import { formatBytes, formatExactBytes } from './format.js';
import type { PayloadSearchState } from './usePayloadSearch.js';

/** Characters of context a hit's row shows before its match. */
const SNIPPET_BEFORE_CHARS = 16;

interface HitRowProps {
  hit: FrameSearchHit;
  selected: boolean;
  onOpen(seq: number): void;
}

/** A frame found by a payload search: its match in context, highlighted. */
export const HitRow = memo(function HitRow({ hit, selected, onOpen }: HitRowProps): ReactElement {
  const classes = ['ps-frame-row', 'ps-frame-row--hit'];
  if (hit.seq % 2 === 1) classes.push('ps-frame-row--alt');
  if (selected) classes.push('ps-frame-row--selected');
  const { text, matchStart, matchLength } = hit;
  // A narrow column: a little context before the match, so the match itself shows.
  const from = Math.max(0, matchStart - SNIPPET_BEFORE_CHARS);
  return (
    <button
      type="button"
      className={classes.join(' ')}
      data-testid="frame-hit"
      data-seq={hit.seq}
      data-offset={hit.offset}
      aria-current={selected ? 'true' : undefined}
      title={`#${hit.seq}: match at byte ${hit.offset.toLocaleString('en-US')}${hit.previewOnly ? ' (its bytes were dropped: only its first bytes were searched)' : ''}`}
      onClick={() => onOpen(hit.seq)}
    >
      <FrameLeadColumns frame={hit} />
      <span className="ps-col-size" title={formatExactBytes(hit.bytes)}>
        {formatBytes(hit.bytes)}
      </span>
      <span className="ps-col-preview ps-hit-snippet">
        {from > 0 ? '…' : ''}
        {text.slice(from, matchStart)}
        <mark>{text.slice(matchStart, matchStart + matchLength)}</mark>
        {text.slice(matchStart + matchLength)}
      </span>
    </button>
  );
});

export function hitKey(hit: FrameSearchHit): number {
  return hit.seq;
}

/** What the search says it did: hits, frames and bytes searched, time, and how it ended. */
export function searchCount(s: PayloadSearchState, shown: number): string {
  if (s.status === 'waiting') return 'searching…';
  if (s.status === 'error') return `search failed: ${s.error ?? ''}`;
  const scanned = `${formatCount(s.scannedFrames)} frames (${formatSize(s.scannedBytes)})`;
  if (s.status === 'searching') return `${formatCount(shown)} found · searching ${scanned}…`;
  const capped = s.status === 'capped' ? ' (stopped at the first 1,000)' : '';
  return `${formatCount(shown)} frame${shown === 1 ? '' : 's'} match${capped} · searched ${scanned} in ${Math.round(s.elapsedMs)} ms`;
}
