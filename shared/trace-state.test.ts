import { describe, expect, it } from 'vitest';
import { emptyLiveMetrics } from './metrics.js';
import { type RequestRecord, sentRecord } from './requests.js';
import type { TraceFindingEvent, TraceMetricsEvent } from './trace-format.js';
import {
  countUpTo,
  emptyTimeline,
  findingsAt,
  metricsAt,
  processAt,
  requestsAt,
  runningMax,
  seriesAt,
  traceMarkers,
} from './trace-state.js';

const sample = (t: number, stdoutBytes: number): TraceMetricsEvent => ({
  t,
  type: 'metrics',
  metrics: { ...emptyLiveMetrics(), elapsedMs: t, stdoutBytes, stdoutRate: stdoutBytes / 10 },
});

const record = (id: number, status: RequestRecord['status']): RequestRecord => ({
  ...sentRecord({ id, method: 'tools/call', sentAt: 0, requestBytes: 10 }),
  status,
  latencyMs: status === 'pending' ? null : 5,
});

const finding = (t: number, count: number, requestId?: number): TraceFindingEvent => ({
  t,
  type: 'finding',
  code: 'stdout-pollution',
  level: 'error',
  message: `seen ${count}`,
  count,
  firstAt: 100,
  lastAt: t,
  ...(requestId === undefined ? {} : { requestId }),
});

describe('trace state at t', () => {
  it('counts items up to t by binary search over a running maximum', () => {
    const ts = runningMax([0, 10, 8, 20, 20, 35]);
    expect([...ts]).toEqual([0, 10, 10, 20, 20, 35]);
    const at = (t: number) => countUpTo(ts.length, (i) => ts[i], t);
    expect([at(-1), at(0), at(9), at(10), at(20), at(34), at(35), at(1e9)]).toEqual([
      0, 1, 1, 3, 5, 5, 6, 6,
    ]);
  });

  it('takes metrics from the last sample at or before t, zeros before the first', () => {
    const samples = [sample(1000, 10), sample(2000, 50)];
    expect(metricsAt(samples, 0)).toEqual(emptyLiveMetrics());
    expect(metricsAt(samples, 999).stdoutBytes).toBe(0);
    expect(metricsAt(samples, 1000).stdoutBytes).toBe(10);
    expect(metricsAt(samples, 1999).stdoutBytes).toBe(10);
    expect(metricsAt(samples, 5000).stdoutBytes).toBe(50);
    expect(seriesAt(samples, 1500).map((p) => p.t)).toEqual([1000]);
    expect(seriesAt(samples, 5000, 1).map((p) => p.stdoutRate)).toEqual([5]);
  });

  it('shows each request as its last record at or before t', () => {
    const events = [
      { t: 10, type: 'request' as const, record: record(1, 'pending') },
      { t: 20, type: 'request' as const, record: record(2, 'pending') },
      { t: 30, type: 'request' as const, record: record(1, 'completed') },
    ];
    expect(requestsAt(events, 5)).toEqual([]);
    expect(requestsAt(events, 25).map((r) => [r.id, r.status])).toEqual([
      [1, 'pending'],
      [2, 'pending'],
    ]);
    expect(requestsAt(events, 30).map((r) => [r.id, r.status])).toEqual([
      [1, 'completed'],
      [2, 'pending'],
    ]);
    expect(requestsAt(events, 30, 1).map((r) => r.id)).toEqual([2]);
  });

  it('folds findings as the live engine held them (latest event per code and request)', () => {
    const events = [finding(100, 1), finding(200, 2), finding(300, 1, 7)];
    expect(findingsAt(events, 50)).toEqual([]);
    expect(findingsAt(events, 150)).toMatchObject([{ count: 1, message: 'seen 1', lastAt: 100 }]);
    const all = findingsAt(events, 300);
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ count: 2, lastAt: 200 });
    expect(all[1]).toMatchObject({ requestId: 7 });
  });

  it('follows the process state, pid and exit', () => {
    const tl = emptyTimeline();
    tl.states.push({ t: 1, type: 'state', state: 'running', pid: 42 });
    tl.states.push({ t: 90, type: 'state', state: 'stopped', pid: null });
    tl.exits.push({ t: 80, type: 'exit', code: 0, signal: null });
    expect(processAt(tl, 0)).toEqual({ state: 'starting', pid: null, exit: null });
    expect(processAt(tl, 50)).toEqual({ state: 'running', pid: 42, exit: null });
    expect(processAt(tl, 100)).toEqual({
      state: 'stopped',
      pid: 42,
      exit: { code: 0, signal: null },
    });
  });

  it('marks each finding once and every cancellation, in time order, capped', () => {
    const tl = emptyTimeline();
    tl.findings.push(finding(100, 1), finding(200, 2));
    tl.cancels.push({ t: 50, type: 'cancel', id: 3, reason: 'user' });
    const { markers, skipped } = traceMarkers(tl);
    expect(markers.map((m) => [m.kind, m.t])).toEqual([
      ['cancel', 50],
      ['finding', 100],
    ]);
    expect(skipped).toBe(0);
    expect(traceMarkers(tl, 1)).toMatchObject({ skipped: 1 });
  });
});
