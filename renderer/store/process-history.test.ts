import { describe, expect, it } from 'vitest';
import { PROCESS_HISTORY_SAMPLES } from '../../shared/session-info';
import {
  makeFinding,
  makeProcess,
  makeProcessSnapshot,
  makeSnapshot,
} from '../../test/fixtures/host-data';
import { appendProcessHistory, historyFromPoints, NO_PROCESS_HISTORY } from './process-history';
import { applySnapshot } from './reducers';

const server = (cpu: number) => makeProcess({ pid: 100, cpuPercent: cpu });
const child = (cpu: number) => makeProcess({ pid: 200, ppid: 100, depth: 1, cpuPercent: cpu });

describe('process history', () => {
  it('keeps the last PROCESS_HISTORY_SAMPLES points per pid, oldest first', () => {
    let h = NO_PROCESS_HISTORY;
    for (let i = 0; i < PROCESS_HISTORY_SAMPLES + 5; i++)
      h = appendProcessHistory(h, makeProcessSnapshot(i * 500, [server(i)]));
    const points = h.get(100) ?? [];
    expect(points).toHaveLength(PROCESS_HISTORY_SAMPLES);
    expect(points[0].cpuPercent).toBe(5);
    expect(points.at(-1)?.cpuPercent).toBe(PROCESS_HISTORY_SAMPLES + 4);
  });

  it('forgets a pid once it is gone from the tree', () => {
    let h = appendProcessHistory(NO_PROCESS_HISTORY, makeProcessSnapshot(0, [server(1), child(2)]));
    expect([...h.keys()]).toEqual([100, 200]);
    h = appendProcessHistory(h, makeProcessSnapshot(500, [server(3)]));
    expect([...h.keys()]).toEqual([100]);
  });

  it('takes the same sample once (a whole state, then a delta that still carried it)', () => {
    const s = makeProcessSnapshot(500, [server(1)]);
    const h = appendProcessHistory(appendProcessHistory(NO_PROCESS_HISTORY, s), s);
    expect(h.get(100)).toHaveLength(1);
  });

  it('rebuilds from flat points, keeping the pids of the sample shown', () => {
    const points = [
      { t: 0, pid: 100, cpuPercent: 1, writeRate: 0 },
      { t: 0, pid: 300, cpuPercent: 9, writeRate: 0 },
      { t: 500, pid: 100, cpuPercent: 2, writeRate: 0 },
    ];
    const h = historyFromPoints(points, makeProcessSnapshot(500, [server(2)]));
    expect(h.get(100)?.map((p) => p.cpuPercent)).toEqual([1, 2]);
    expect(h.has(300)).toBe(false);
    expect(historyFromPoints(points, null)).toBe(NO_PROCESS_HISTORY);
  });
});

describe('applySnapshot: process samples', () => {
  it('a delta with a sample replaces the latest and grows the history', () => {
    const a = applySnapshot(
      undefined,
      makeSnapshot(1, { process: makeProcessSnapshot(0, [server(5)]) }),
    );
    expect(a.process?.processes[0].cpuPercent).toBe(5);
    const b = applySnapshot(a, makeSnapshot(2, { process: makeProcessSnapshot(500, [server(7)]) }));
    expect(b.process?.t).toBe(500);
    expect(b.processHistory.get(100)?.map((p) => p.cpuPercent)).toEqual([5, 7]);
  });

  it('a delta without a sample keeps the same references (no re-render)', () => {
    const a = applySnapshot(
      undefined,
      makeSnapshot(1, { process: makeProcessSnapshot(0, [server(5)]) }),
    );
    const b = applySnapshot(a, makeSnapshot(2));
    expect(b.process).toBe(a.process);
    expect(b.processHistory).toBe(a.processHistory);
  });

  it('a replace snapshot without a sample clears it (a trace before its first sample)', () => {
    const a = applySnapshot(
      undefined,
      makeSnapshot(1, { process: makeProcessSnapshot(0, [server(5)]) }),
    );
    const b = applySnapshot(a, makeSnapshot(2, { replace: true }));
    expect(b.process).toBeNull();
    expect(b.processHistory.size).toBe(0);
  });

  it('a replace snapshot brings its sample and the history before it', () => {
    const b = applySnapshot(
      undefined,
      makeSnapshot(2, {
        replace: true,
        process: makeProcessSnapshot(1000, [server(9)]),
        processHistory: [
          { t: 500, pid: 100, cpuPercent: 4, writeRate: 0 },
          { t: 1000, pid: 100, cpuPercent: 9, writeRate: 0 },
        ],
        findings: [makeFinding({ code: 'server-write-blocked', evidence: { pid: 100 } })],
      }),
    );
    expect(b.process?.t).toBe(1000);
    expect(b.processHistory.get(100)?.map((p) => p.cpuPercent)).toEqual([4, 9]);
    expect(b.findings[0].evidence?.pid).toBe(100);
  });
});
