/**
 * A trace's state at a moment t, pure: which of the recorded small events (metrics samples,
 * request records, findings, state, exit, cancellations) had happened by t. The host keeps the
 * small events of an open trace in a TraceTimeline and asks these functions on every seek; frame
 * and stderr text and process samples stay on disk (electron/engine/trace/trace-session.ts
 * reads them by index, and turns the samples it read with the functions at the end).
 */
import type { LiveFinding } from './findings.js';
import { emptyLiveMetrics, type LiveMetrics } from './metrics.js';
import type { ProcessAvailability } from './process.js';
import type { RequestRecord } from './requests.js';
import {
  PROCESS_HISTORY_SAMPLES,
  type ProcessPoint,
  processPoints,
  type SeriesPoint,
  type SessionState,
  type TraceMarker,
} from './session-info.js';
import type {
  TraceCancelEvent,
  TraceExitEvent,
  TraceFindingEvent,
  TraceHeader,
  TraceMetricsEvent,
  TraceProcessEvent,
  TraceRequestEvent,
  TraceStateEvent,
} from './trace-format.js';

/** The small events of one trace, each list in file order. */
export interface TraceTimeline {
  metrics: TraceMetricsEvent[];
  requests: TraceRequestEvent[];
  findings: TraceFindingEvent[];
  states: TraceStateEvent[];
  exits: TraceExitEvent[];
  cancels: TraceCancelEvent[];
}

export function emptyTimeline(): TraceTimeline {
  return { metrics: [], requests: [], findings: [], states: [], exits: [], cancels: [] };
}

/**
 * How many leading items have `t(i) ≤ t`, by binary search. Lines may step back by a few ms
 * across event types (trace-format.ts), so callers pass a running maximum, which is sorted.
 */
export function countUpTo(length: number, tOf: (i: number) => number, t: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tOf(mid) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A running maximum of `ts`: sorted, so countUpTo can search it. */
export function runningMax(ts: ArrayLike<number>): Float64Array {
  const out = new Float64Array(ts.length);
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < ts.length; i++) {
    max = Math.max(max, ts[i]);
    out[i] = max;
  }
  return out;
}

/** Metrics of the last 1 Hz sample at or before t (all zeros before the first one). */
export function metricsAt(samples: readonly TraceMetricsEvent[], t: number): LiveMetrics {
  let last: TraceMetricsEvent | null = null;
  for (const s of samples) {
    if (s.t > t) break;
    last = s;
  }
  return last ? { ...last.metrics } : emptyLiveMetrics();
}

/** The chart points up to t: one per metrics sample, the last `cap`. */
export function seriesAt(
  samples: readonly TraceMetricsEvent[],
  t: number,
  cap = 600,
): SeriesPoint[] {
  const n = countUpTo(samples.length, (i) => samples[i].t, t);
  return samples.slice(Math.max(0, n - cap), n).map((s) => ({
    t: s.metrics.elapsedMs,
    stdoutRate: s.metrics.stdoutRate,
    stderrRate: s.metrics.stderrRate,
    dispatcherDepth: s.metrics.dispatcherDepth,
    dispatcherWaitMs: s.metrics.dispatcherWaitMs,
    largestFrameBytes: s.metrics.largestFrameBytes,
  }));
}

/** Every request as its last record at or before t said, in the order first seen; the last `cap`. */
export function requestsAt(
  events: readonly TraceRequestEvent[],
  t: number,
  cap = 2000,
): RequestRecord[] {
  const byId = new Map<string, RequestRecord>();
  for (const e of events) {
    if (e.t > t) continue;
    byId.set(`${typeof e.record.id}:${String(e.record.id)}`, e.record);
  }
  const all = [...byId.values()];
  return all.length > cap ? all.slice(all.length - cap) : all;
}

/** Findings as the live engine held them at t: the latest event of each (code, request). */
export function findingsAt(events: readonly TraceFindingEvent[], t: number): LiveFinding[] {
  const latest = new Map<string, TraceFindingEvent>();
  for (const e of events) {
    if (e.t > t) continue;
    const key = e.requestId === undefined ? e.code : `${e.code}#${String(e.requestId)}`;
    // A count of 0: the finding was taken back (raised again later, it comes after the others).
    if (e.count === 0) latest.delete(key);
    else latest.set(key, e);
  }
  return [...latest.values()]
    .sort((a, b) => a.firstAt - b.firstAt)
    .map((e) => ({
      code: e.code,
      level: e.level,
      message: e.message,
      firstAt: e.firstAt,
      lastAt: e.lastAt,
      count: e.count,
      ...(e.requestId === undefined ? {} : { requestId: e.requestId }),
      ...(e.evidence === undefined ? {} : { evidence: e.evidence }),
      ...(e.active === undefined ? {} : { active: e.active }),
      ...(e.since === undefined ? {} : { since: e.since }),
      ...(e.resolvedAt === undefined ? {} : { resolvedAt: e.resolvedAt }),
      ...(e.resolvedBy === undefined ? {} : { resolvedBy: e.resolvedBy }),
      ...(e.figures === undefined ? {} : { figures: e.figures }),
    }));
}

export interface ProcessAt {
  state: SessionState;
  pid: number | null;
  exit: { code: number | null; signal: string | null } | null;
}

/** The server process as of t: its last recorded state, pid and exit. */
export function processAt(timeline: TraceTimeline, t: number): ProcessAt {
  let state: SessionState = 'starting';
  let pid: number | null = null;
  for (const s of timeline.states) {
    if (s.t > t) continue;
    state = s.state;
    if (s.pid !== null) pid = s.pid;
  }
  let exit: ProcessAt['exit'] = null;
  for (const x of timeline.exits) {
    if (x.t <= t) exit = { code: x.code, signal: x.signal };
  }
  return { state, pid, exit };
}

/** Scrubber markers: each finding's first appearance and each cancellation, the first `cap`. */
export function traceMarkers(
  timeline: TraceTimeline,
  cap = 500,
): { markers: TraceMarker[]; skipped: number } {
  const seen = new Set<string>();
  const all: TraceMarker[] = [];
  for (const f of timeline.findings) {
    const key = f.requestId === undefined ? f.code : `${f.code}#${String(f.requestId)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push({ t: f.firstAt, kind: 'finding', label: f.code, level: f.level });
  }
  for (const c of timeline.cancels) {
    all.push({ t: c.t, kind: 'cancel', label: `cancel ${String(c.id)}`, level: null });
  }
  all.sort((a, b) => a.t - b.t);
  return { markers: all.slice(0, cap), skipped: Math.max(0, all.length - cap) };
}

/**
 * Whether a trace can show process evidence: what the recorder found when it began, else
 * (an older trace) whether it holds samples at all.
 */
export function traceProcessAvailability(
  header: Pick<TraceHeader, 'process'>,
  samplesRecorded: number,
): ProcessAvailability {
  if (samplesRecorded > 0) return { available: true };
  if (header.process) return { ...header.process };
  return { available: false, reason: 'this trace holds no process samples' };
}

/** The report's `process` as of the last sample read (null: none recorded by then). */
export function processReportAt(
  availability: ProcessAvailability,
  last: TraceProcessEvent | null,
): { available: boolean; reason?: string; samples: number } {
  return {
    available: availability.available,
    ...(availability.reason === undefined ? {} : { reason: availability.reason }),
    samples: last?.samples ?? 0,
  };
}

/** The sparkline points of the samples before (and including) the one shown, oldest first. */
export function processHistoryOf(
  events: readonly TraceProcessEvent[],
  cap = PROCESS_HISTORY_SAMPLES,
): ProcessPoint[] {
  return events.slice(Math.max(0, events.length - cap)).flatMap((e) => processPoints(e.snapshot));
}
