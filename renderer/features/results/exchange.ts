/**
 * Where a request's two lines are in the frame store, and how much of each the detail pane
 * fetches. Pure. The record names them (`requestSeq`, `responseSeq`); a record without them
 * (an older trace) is matched to the frames log by id and direction. Lines up to
 * WHOLE_MAX_BYTES are fetched whole (rendered); a larger one only its first page (HEAD_BYTES),
 * with the paged frame viewer for the rest: a 40 MiB answer never reaches the renderer whole.
 */
import type { FrameSummary } from '../../../shared/frames';
import type { RequestRecord } from '../../../shared/requests';
import { HEAD_BYTES, WHOLE_MAX_BYTES } from '../frames/paging';

export { HEAD_BYTES, WHOLE_MAX_BYTES };

/** The summary of frame `seq` in a log sorted by seq (binary search), or undefined. */
export function findFrame(frames: readonly FrameSummary[], seq: number): FrameSummary | undefined {
  let lo = 0;
  let hi = frames.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = frames[mid].seq;
    if (s === seq) return frames[mid];
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function lastMatching(
  frames: readonly FrameSummary[],
  match: (f: FrameSummary) => boolean,
): number | null {
  for (let i = frames.length - 1; i >= 0; i--) if (match(frames[i])) return frames[i].seq;
  return null;
}

/** The seq of the request's own line: the record's, else the newest outgoing request with its id. */
export function requestSeqOf(r: RequestRecord, frames: readonly FrameSummary[]): number | null {
  if (r.requestSeq !== undefined) return r.requestSeq;
  return lastMatching(
    frames,
    (f) => f.kind === 'request' && f.id === r.id && f.method === r.method,
  );
}

/** The seq of its response line: the record's, else the newest incoming response with its id. */
export function responseSeqOf(r: RequestRecord, frames: readonly FrameSummary[]): number | null {
  if (r.responseSeq !== undefined) return r.responseSeq;
  if (r.responseBytes === null) return null;
  const after = requestSeqOf(r, frames) ?? 0;
  return lastMatching(frames, (f) => f.kind === 'response' && f.id === r.id && f.seq > after);
}

/** The first page to fetch of a line of `knownBytes` (null: size not known yet). */
export function firstFetch(knownBytes: number | null): { offset: 0; length: number } {
  if (knownBytes !== null && knownBytes <= WHOLE_MAX_BYTES)
    return { offset: 0, length: knownBytes };
  return { offset: 0, length: HEAD_BYTES };
}

/** After a first page: whether to fetch the line again whole (its size was not known, and it is small). */
export function refetchWhole(page: { length: number; totalBytes: number }): number | null {
  return page.length < page.totalBytes && page.totalBytes <= WHOLE_MAX_BYTES
    ? page.totalBytes
    : null;
}

/** Why a response line cannot be shown, from the record alone (null: it should exist). */
export function noResponseReason(r: RequestRecord): string | null {
  if (r.responseBytes !== null || r.responseSeq !== undefined) return null;
  if (r.status === 'pending') return 'No answer yet.';
  if (r.error) return 'No response line: the request failed without one (see the error above).';
  if (r.status === 'cancelled') return 'No answer arrived: the request was cancelled.';
  if (r.status === 'timed-out') return 'No answer arrived before the timeout.';
  return 'No response line was seen.';
}
