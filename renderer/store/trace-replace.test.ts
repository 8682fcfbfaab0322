import { describe, expect, it } from 'vitest';
import {
  makeFinding,
  makeFrame,
  makeInfo,
  makeRequest,
  makeSnapshot,
} from '../../test/fixtures/host-data';
import { applySnapshot, reduceEvent } from './reducers';
import { DEFAULT_LIMITS } from './types';

const traceInfo = (t: number) =>
  makeInfo({
    id: 'trace-1',
    trace: {
      path: '/t/a.jsonl',
      fileName: 'a.jsonl',
      fileBytes: 100,
      recordedAt: 0,
      durationMs: 1000,
      t,
      reconstructed: false,
      skippedLines: 0,
      markers: [],
      markersSkipped: 0,
    },
  });

describe('trace snapshots replace the state', () => {
  it('a replace snapshot is the whole state at t, not a delta', () => {
    const end = applySnapshot(
      undefined,
      makeSnapshot(1, {
        sessionId: 'trace-1',
        info: traceInfo(1000),
        replace: true,
        frames: [makeFrame(1), makeFrame(2)],
        requests: [makeRequest({ id: 1 }), makeRequest({ id: 2 })],
        stderr: 'line\n',
        findings: [makeFinding()],
        series: [
          {
            t: 0,
            stdoutRate: 1,
            stderrRate: 0,
            dispatcherDepth: 0,
            dispatcherWaitMs: 0,
            largestFrameBytes: 0,
          },
          {
            t: 1000,
            stdoutRate: 2,
            stderrRate: 0,
            dispatcherDepth: 0,
            dispatcherWaitMs: 0,
            largestFrameBytes: 0,
          },
        ],
      }),
    );
    expect(end.frames).toHaveLength(2);
    expect(end.points).toHaveLength(2);
    const zero = applySnapshot(
      end,
      makeSnapshot(2, { sessionId: 'trace-1', info: traceInfo(0), replace: true, series: [] }),
    );
    expect(zero.frames).toEqual([]);
    expect(zero.requests.size).toBe(0);
    expect(zero.stderr).toBe('');
    expect(zero.findings).toEqual([]);
    expect(zero.points).toEqual([]);
    expect(zero.info.trace?.t).toBe(0);
  });

  it('drops a seek answered after a newer one (by seq)', () => {
    const newer = applySnapshot(
      undefined,
      makeSnapshot(5, { sessionId: 'trace-1', info: traceInfo(0), replace: true }),
    );
    const stale = makeSnapshot(4, {
      sessionId: 'trace-1',
      info: traceInfo(900),
      replace: true,
      frames: [makeFrame(1)],
    });
    expect(applySnapshot(newer, stale)).toBe(newer);
  });

  it('caps replaced lists like live ones', () => {
    const frames = Array.from({ length: 30 }, (_, i) => makeFrame(i + 1));
    const data = applySnapshot(
      undefined,
      makeSnapshot(1, { sessionId: 'trace-1', info: traceInfo(5), replace: true, frames }),
      { ...DEFAULT_LIMITS, frames: 10 },
    );
    expect(data.frames.map((f) => f.seq)).toEqual(frames.slice(20).map((f) => f.seq));
    expect(data.framesSkipped).toBe(20);
  });

  it('ignores notice and menu events', () => {
    const state = { sessions: [], bySession: {}, closedIds: [], activeId: null };
    expect(reduceEvent(state, { type: 'notice', level: 'info', text: 'x' })).toBe(state);
    expect(reduceEvent(state, { type: 'menu', action: 'new-session' })).toBe(state);
  });
});
