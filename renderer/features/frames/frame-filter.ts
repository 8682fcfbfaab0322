/**
 * Frame log filtering: direction, kind, and a method/id text search. Pure; FramesPanel
 * memoizes the result on (frames, filter), and an inactive filter returns the input array
 * itself so the common case copies nothing.
 */
import type { FrameDirection, FrameKind, FrameSummary } from '../../../shared/frames.js';
import { formatId } from './format.js';

export type FrameKindOrOversize = FrameKind | 'oversize';

export const FRAME_KINDS: readonly FrameKindOrOversize[] = [
  'request',
  'response',
  'notification',
  'parse-error',
  'empty',
  'invalid',
  'oversize',
  'batch',
];

export interface FrameFilter {
  dir: FrameDirection | 'all';
  kind: FrameKindOrOversize | 'all';
  /** Case-insensitive substring of method or id; `#12` matches sequence number 12. */
  text: string;
}

export const EMPTY_FILTER: FrameFilter = { dir: 'all', kind: 'all', text: '' };

/** Kinds shown highlighted: pollution on stdout, invalid JSON-RPC, frames over the limit. */
export function isProblemKind(kind: FrameKindOrOversize): boolean {
  return kind === 'parse-error' || kind === 'empty' || kind === 'invalid' || kind === 'oversize';
}

export function isFilterActive(filter: FrameFilter): boolean {
  return filter.dir !== 'all' || filter.kind !== 'all' || filter.text.trim() !== '';
}

/** A predicate for one filter, with the text normalized once rather than per frame. */
export function frameMatcher(filter: FrameFilter): (frame: FrameSummary) => boolean {
  const { dir, kind } = filter;
  const text = filter.text.trim().toLowerCase();
  const seqQuery = /^#\d+$/.test(text) ? Number(text.slice(1)) : null;
  return (frame) => {
    if (dir !== 'all' && frame.dir !== dir) return false;
    if (kind !== 'all' && frame.kind !== kind) return false;
    if (text === '') return true;
    if (seqQuery !== null) return frame.seq === seqQuery;
    if (frame.method?.toLowerCase().includes(text)) return true;
    if (frame.id === undefined) return false;
    // Match both the wire form ("abc" with quotes) and the bare value.
    return formatId(frame.id).toLowerCase().includes(text);
  };
}

/** The frames passing `filter`; the same array when the filter is inactive. */
export function filterFrames(
  frames: readonly FrameSummary[],
  filter: FrameFilter,
): readonly FrameSummary[] {
  if (!isFilterActive(filter)) return frames;
  return frames.filter(frameMatcher(filter));
}
