/**
 * Derived views of the store, pure. Functions over whole collections are memoized on the input
 * reference, so a component re-rendering at 20 Hz does not re-sort an unchanged table.
 */
import {
  type FindingCode,
  type FindingFigure,
  type FindingLevel,
  type FindingState,
  findingState,
  type LiveFinding,
} from '../../shared/findings';
import type { FindingEvidence } from '../../shared/process';
import type { JsonRpcId, RequestRecord } from '../../shared/requests';
import type { SessionData } from './types';

function memoOne<A extends object, R>(fn: (a: A) => R): (a: A) => R {
  let lastArg: A | null = null;
  let lastResult: R;
  return (a) => {
    if (a !== lastArg) {
      lastResult = fn(a);
      lastArg = a;
    }
    return lastResult;
  };
}

/** Newest first (by send time, then insertion order). */
export function sortRequests(requests: ReadonlyMap<JsonRpcId, RequestRecord>): RequestRecord[] {
  const list = [...requests.values()];
  const order = new Map(list.map((r, i) => [r, i]));
  return list.sort((a, b) => b.sentAt - a.sentAt || (order.get(b) ?? 0) - (order.get(a) ?? 0));
}

export const selectRequestsNewestFirst = memoOne(sortRequests);

export function isFinished(r: RequestRecord): boolean {
  return r.status !== 'pending';
}

/** HARDENING 11: `initialize` can never be cancelled; only pending requests can. */
export function canCancel(r: RequestRecord): boolean {
  return r.method !== 'initialize' && r.status === 'pending';
}

/** The engine refuses to replay `initialize` (it would re-open the session). */
export function canReplay(r: RequestRecord): boolean {
  return r.method !== 'initialize';
}

/** What `c` cancels: the selected request if it can be, else the most recent in-flight one. */
export function cancelTarget(
  requests: ReadonlyMap<JsonRpcId, RequestRecord>,
  selected: JsonRpcId | null,
): RequestRecord | null {
  const chosen = selected === null ? undefined : requests.get(selected);
  if (chosen && canCancel(chosen)) return chosen;
  return selectRequestsNewestFirst(requests).find(canCancel) ?? null;
}

/** What `r` replays: the selected request, else the most recent replayable one. */
export function replayTarget(
  requests: ReadonlyMap<JsonRpcId, RequestRecord>,
  selected: JsonRpcId | null,
): RequestRecord | null {
  const chosen = selected === null ? undefined : requests.get(selected);
  if (chosen && canReplay(chosen)) return chosen;
  return selectRequestsNewestFirst(requests).find(canReplay) ?? null;
}

/** Whether any request was cancelled (by the user or by a timeout): offer the recovery probe. */
export function hasCancellation(data: SessionData): boolean {
  if ((data.metrics?.cancellationsSent ?? 0) > 0) return true;
  for (const r of data.requests.values()) if (r.cancelledAt !== null) return true;
  return false;
}

/** The time span the waterfall bars are drawn against: first send to now (ms since start). */
export function waterfallSpan(
  rows: readonly RequestRecord[],
  nowMs: number,
): { start: number; end: number } {
  if (rows.length === 0) return { start: 0, end: Math.max(nowMs, 1) };
  let start = Number.POSITIVE_INFINITY;
  let end = nowMs;
  for (const r of rows) {
    start = Math.min(start, r.sentAt);
    end = Math.max(end, r.sentAt + (r.latencyMs ?? 0));
  }
  return { start, end: Math.max(end, start + 1) };
}

/** One bar of the waterfall, in percent of the span; pending requests run to `now`. */
export function waterfallBar(
  r: RequestRecord,
  span: { start: number; end: number },
  nowMs: number,
): { left: number; width: number } {
  const width = span.end - span.start;
  // Answered: to the response. In flight: to now. Cancelled without an answer: to the cancel.
  const stop =
    r.latencyMs !== null
      ? r.sentAt + r.latencyMs
      : r.status === 'pending'
        ? nowMs
        : (r.cancelledAt ?? r.sentAt);
  const left = ((r.sentAt - span.start) / width) * 100;
  const w = ((stop - r.sentAt) / width) * 100;
  return { left: clamp(left, 0, 100), width: clamp(w, 0.4, 100 - clamp(left, 0, 100)) };
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

/** Findings grouped by code: conditions that hold now first, then by level and first
 *  appearance. */
export interface FindingGroup {
  code: FindingCode;
  level: FindingLevel;
  count: number;
  firstAt: number;
  lastAt: number;
  messages: string[];
  /** What the latest finding of the code that has evidence rests on (null: none has). */
  evidence: FindingEvidence | null;
  /** Active while any of the code's conditions holds; resolved once all ended; else events. */
  state: FindingState;
  /** The latest episode of a condition: when it began, and when (and why) it ended. */
  since: number | null;
  resolvedAt: number | null;
  resolvedBy: LiveFinding['resolvedBy'] | null;
  /** The figures of the code's latest finding that has some. */
  figures: FindingFigure[];
}

const LEVEL_ORDER: Record<FindingLevel, number> = { error: 0, warn: 1, info: 2 };
const STATE_ORDER: Record<FindingState, number> = { active: 0, event: 1, resolved: 1 };

function stateOfGroup(a: FindingState, b: FindingState): FindingState {
  if (a === 'active' || b === 'active') return 'active';
  if (a === 'resolved' || b === 'resolved') return 'resolved';
  return 'event';
}

export function groupFindings(findings: readonly LiveFinding[]): FindingGroup[] {
  const groups = new Map<FindingCode, FindingGroup>();
  for (const f of findings) {
    const g = groups.get(f.code);
    if (!g) {
      groups.set(f.code, {
        code: f.code,
        level: f.level,
        count: f.count,
        firstAt: f.firstAt,
        lastAt: f.lastAt,
        messages: [f.message],
        evidence: f.evidence ?? null,
        state: findingState(f),
        since: f.since ?? null,
        resolvedAt: f.resolvedAt ?? null,
        resolvedBy: f.resolvedBy ?? null,
        figures: f.figures ?? [],
      });
    } else {
      g.count += f.count;
      g.firstAt = Math.min(g.firstAt, f.firstAt);
      if (f.evidence && f.lastAt >= g.lastAt) g.evidence = f.evidence;
      if (f.figures && f.lastAt >= g.lastAt) g.figures = f.figures;
      g.lastAt = Math.max(g.lastAt, f.lastAt);
      g.state = stateOfGroup(g.state, findingState(f));
      if (f.since !== undefined) g.since = Math.max(g.since ?? f.since, f.since);
      if (f.resolvedAt !== undefined && (g.resolvedAt ?? -1) <= f.resolvedAt) {
        g.resolvedAt = f.resolvedAt;
        g.resolvedBy = f.resolvedBy ?? null;
      }
      if (g.messages.length < 5) g.messages.push(f.message);
    }
  }
  return [...groups.values()].sort(
    (a, b) =>
      STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
      LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] ||
      a.firstAt - b.firstAt,
  );
}

export const selectFindingGroups = memoOne(groupFindings);

/**
 * Frames per second above which a session counts as flooding: the host then already skips
 * frame summaries (it sends at most ~50 per snapshot, 20 snapshots a second), nobody can read
 * the log row by row, and the dashboard redraws its lists and charts less often.
 */
export const FLOOD_FRAMES_PER_S = 1000;

export function isFlooding(data: SessionData | undefined): boolean {
  return (data?.frameRate ?? 0) > FLOOD_FRAMES_PER_S;
}

/**
 * Handshake marker for tests and the header: done once serverInfo or an error is known, or, on
 * a tapped session (whose handshake is the host's, not ours), once the host's initialize ended.
 */
export function handshakeState(data: SessionData): 'pending' | 'done' {
  if (data.info.serverInfo || data.info.handshakeError) return 'done';
  if (!data.info.tap) return 'pending';
  const init = hostHandshake(data);
  return init !== null && init !== 'pending' ? 'done' : 'pending';
}

/** The status of the first `initialize` in the request table (null: none seen). The host
 *  sends it first, so the scan stops at once. */
export function hostHandshake(data: SessionData): RequestRecord['status'] | null {
  for (const r of data.requests.values()) if (r.method === 'initialize') return r.status;
  return null;
}
