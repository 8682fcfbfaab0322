/**
 * The requests table's latency and size cells and its sort (pure). A cancelled request still
 * has a time worth showing: how long until it was cancelled (⊘), and, answered late, how long
 * until that late answer came.
 */
import type { RequestRecord } from '../../../shared/requests';
import { formatMs } from '../../components/format';

export type SortKey = 'sent' | 'latency' | 'size';
export type SortDir = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

/** Newest first, as the table has always shown them. */
export const DEFAULT_SORT: Sort = { key: 'sent', dir: 'desc' };

/** ms from send until it was cancelled (a timeout sends one too), or null. */
export function timeToCancel(r: RequestRecord): number | null {
  return r.cancelledAt === null ? null : Math.max(0, r.cancelledAt - r.sentAt);
}

/** The time a row shows and sorts by: the answer's latency, else the time to its
 *  cancellation, else (pending) how long it has been waiting. */
export function latencyOf(r: RequestRecord, nowMs: number): number | null {
  if (r.latencyMs !== null) return r.latencyMs;
  const cancel = timeToCancel(r);
  if (cancel !== null) return cancel;
  return r.status === 'pending' ? Math.max(0, nowMs - r.sentAt) : null;
}

export interface LatencyCell {
  text: string;
  title: string;
  /** Which time it is. */
  kind: 'answer' | 'late' | 'cancel' | 'waiting' | 'none';
}

export function latencyCell(r: RequestRecord, nowMs: number): LatencyCell {
  const cancel = timeToCancel(r);
  if (r.latencyMs !== null) {
    if (cancel !== null && r.status === 'late')
      return {
        text: formatMs(r.latencyMs),
        title: `answered late: ${formatMs(r.latencyMs)} after it was sent, ${formatMs(r.latencyMs - cancel)} after the cancellation (sent ${formatMs(cancel)} after the request)`,
        kind: 'late',
      };
    return { text: formatMs(r.latencyMs), title: 'from sending to the answer', kind: 'answer' };
  }
  if (cancel !== null)
    return {
      text: `⊘ ${formatMs(cancel)}`,
      title: `${r.cancelReason === 'timeout' ? 'timed out' : 'cancelled'} ${formatMs(cancel)} after it was sent; no answer${r.status === 'pending' ? ' yet' : ''}`,
      kind: 'cancel',
    };
  if (r.status === 'pending')
    return { text: formatMs(nowMs - r.sentAt), title: 'waiting for the answer', kind: 'waiting' };
  return { text: '—', title: 'no answer', kind: 'none' };
}

function valueFor(r: RequestRecord, key: SortKey, nowMs: number): number | null {
  if (key === 'latency') return latencyOf(r, nowMs);
  if (key === 'size') return r.responseBytes;
  return r.sentAt;
}

/** `rows` sorted by `sort` (rows without a value last, whatever the direction); ties keep the
 *  newest first. A new array; `rows` is left as it is. */
export function sortRequests(
  rows: readonly RequestRecord[],
  sort: Sort,
  nowMs: number,
): RequestRecord[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = valueFor(a, sort.key, nowMs);
    const y = valueFor(b, sort.key, nowMs);
    if (x === null || y === null) return x === y ? b.sentAt - a.sentAt : x === null ? 1 : -1;
    return (x - y) * sign || b.sentAt - a.sentAt;
  });
}

/** The next sort after a click on `key`'s header: a new column starts largest first. */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key !== key) return { key, dir: 'desc' };
  return { key, dir: current.dir === 'desc' ? 'asc' : 'desc' };
}

/** A request and its answer as one JSON document (what "Copy pair" puts on the clipboard):
 *  both lines parsed (or kept as text when they are not JSON). */
export function requestPair(
  r: RequestRecord,
  requestText: string | null,
  responseText: string | null,
): string {
  const parsed = (t: string | null): unknown => {
    if (t === null) return null;
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return t;
    }
  };
  return JSON.stringify(
    {
      id: r.id,
      method: r.method,
      status: r.status,
      latencyMs: r.latencyMs,
      ...(r.cancelledAt === null ? {} : { cancelledAfterMs: timeToCancel(r) }),
      request: parsed(requestText),
      response: parsed(responseText),
    },
    null,
    2,
  );
}
