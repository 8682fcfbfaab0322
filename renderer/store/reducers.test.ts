import { describe, expect, it } from 'vitest';
import {
  makeFinding,
  makeFrame,
  makeInfo,
  makeRequest,
  makeSnapshot,
} from '../../test/fixtures/host-data';
import {
  appendCapped,
  appendTextCapped,
  applySessions,
  applySnapshot,
  emptyDataState,
  largestPerDirection,
  mergeRequests,
  nextFrameRate,
  openSession,
  reduceEvent,
  sameInfo,
} from './reducers';
import { DEFAULT_LIMITS, type StoreLimits } from './types';

const SMALL: StoreLimits = { points: 3, requests: 3, frames: 4, frameSizes: 2, stderrChars: 10 };

describe('appendCapped', () => {
  it('returns the same array when the delta is empty', () => {
    const list = [1, 2];
    expect(appendCapped(list, [], 5).list).toBe(list);
  });

  it('appends under the cap without dropping', () => {
    expect(appendCapped([1, 2], [3], 5)).toEqual({ list: [1, 2, 3], dropped: 0 });
  });

  it('keeps the newest items and counts the dropped ones', () => {
    expect(appendCapped([1, 2, 3], [4, 5], 3)).toEqual({ list: [3, 4, 5], dropped: 2 });
  });

  it('handles a delta larger than the cap', () => {
    expect(appendCapped([1], [2, 3, 4, 5], 2)).toEqual({ list: [4, 5], dropped: 3 });
  });
});

describe('appendTextCapped', () => {
  it('keeps the tail and counts what was cut', () => {
    const r = appendTextCapped('abcdef', 'ghijkl', 10);
    expect(r.text).toBe('cdefghijkl');
    expect(r.dropped).toBe(2);
  });

  it('starts at a line boundary when one is near', () => {
    const r = appendTextCapped('line one\nline two\n', 'line three\n', 20);
    expect(r.text).toBe('line three\n');
    expect(r.dropped + r.text.length).toBe('line one\nline two\nline three\n'.length);
  });

  it('never splits a surrogate pair', () => {
    const r = appendTextCapped('x😀', 'abc', 4);
    expect(r.text).toBe('abc');
    expect(r.dropped).toBe(3);
  });
});

describe('largestPerDirection', () => {
  it('keeps the largest incoming and outgoing frame of a batch, in time order', () => {
    expect(
      largestPerDirection([
        { t: 1, bytes: 10, dir: 'in' },
        { t: 2, bytes: 8_000_000, dir: 'in' },
        { t: 3, bytes: 5, dir: 'in' },
        { t: 0, bytes: 40, dir: 'out' },
        { t: 4, bytes: 30, dir: 'out' },
      ]),
    ).toEqual([
      { t: 0, bytes: 40, dir: 'out' },
      { t: 2, bytes: 8_000_000, dir: 'in' },
    ]);
    expect(largestPerDirection([])).toEqual([]);
  });
});

describe('mergeRequests', () => {
  it('replaces changed records by id', () => {
    const first = mergeRequests(new Map(), [makeRequest({ id: 1 })], 10).requests;
    const next = mergeRequests(first, [makeRequest({ id: 1, status: 'completed' })], 10).requests;
    expect(next.get(1)?.status).toBe('completed');
    expect(next.size).toBe(1);
  });

  it('keeps "1" and 1 apart (JSON-RPC ids keep their type)', () => {
    const m = mergeRequests(new Map(), [makeRequest({ id: 1 }), makeRequest({ id: '1' })], 10);
    expect(m.requests.size).toBe(2);
  });

  it('drops the oldest finished requests first, keeping pending ones', () => {
    const start = mergeRequests(
      new Map(),
      [
        makeRequest({ id: 1, status: 'pending' }),
        makeRequest({ id: 2, status: 'completed' }),
        makeRequest({ id: 3, status: 'completed' }),
      ],
      3,
    ).requests;
    const r = mergeRequests(start, [makeRequest({ id: 4 })], 3);
    expect([...r.requests.keys()]).toEqual([1, 3, 4]);
    expect(r.dropped).toBe(1);
  });

  it('drops the oldest pending ones when nothing finished is left', () => {
    const pending = [1, 2, 3, 4].map((id) => makeRequest({ id }));
    const r = mergeRequests(new Map(), pending, 3);
    expect([...r.requests.keys()]).toEqual([2, 3, 4]);
  });
});

describe('applySnapshot', () => {
  it('creates the session from its first snapshot', () => {
    const data = applySnapshot(undefined, makeSnapshot(1, { frames: [makeFrame(1)] }));
    expect(data.seq).toBe(1);
    expect(data.frames).toHaveLength(1);
    expect(data.points).toHaveLength(1);
    expect(data.metrics?.elapsedMs).toBe(50);
  });

  it('accumulates deltas and caps every list', () => {
    let data = applySnapshot(undefined, makeSnapshot(1), SMALL);
    for (let seq = 2; seq <= 6; seq += 1) {
      data = applySnapshot(
        data,
        makeSnapshot(seq, {
          frames: [makeFrame(seq * 10), makeFrame(seq * 10 + 1)],
          frameSizes: [{ t: seq, bytes: seq, dir: 'in' }],
          requests: [makeRequest({ id: seq, status: 'completed' })],
          stderr: `e${seq}\n`,
        }),
        SMALL,
      );
    }
    expect(data.points.map((p) => p.t)).toEqual([200, 250, 300]);
    expect(data.frames.map((f) => f.seq)).toEqual([50, 51, 60, 61]);
    expect(data.framesSkipped).toBe(6);
    expect(data.frameSizes.map((s) => s.bytes)).toEqual([5, 6]);
    expect([...data.requests.keys()]).toEqual([4, 5, 6]);
    expect(data.requestsDropped).toBe(2);
    expect(data.stderr.length).toBeLessThanOrEqual(10);
    expect(data.stderr.endsWith('e6\n')).toBe(true);
    expect(data.stderrSkipped + data.stderr.length).toBe(5 * 3);
  });

  it('adds the frames and stderr the host skipped to the skipped counters', () => {
    const data = applySnapshot(
      undefined,
      makeSnapshot(1, { framesSkipped: 7, stderrSkipped: 1000, stderr: 'x' }),
    );
    expect(data.framesSkipped).toBe(7);
    expect(data.stderrSkipped).toBe(1000);
  });

  it('keeps unchanged parts by reference so narrow selectors do not re-render', () => {
    const first = applySnapshot(
      undefined,
      makeSnapshot(1, { frames: [makeFrame(1)], findings: [makeFinding()] }),
    );
    const second = applySnapshot(first, makeSnapshot(2, { findings: [makeFinding()] }));
    expect(second.frames).toBe(first.frames);
    expect(second.requests).toBe(first.requests);
    expect(second.frameSizes).toBe(first.frameSizes);
    expect(second.findings).toBe(first.findings);
    expect(second.info).toBe(first.info);
    expect(second.metrics).not.toBe(first.metrics);
  });

  it('takes new findings and a changed info', () => {
    const first = applySnapshot(undefined, makeSnapshot(1, { findings: [makeFinding()] }));
    const second = applySnapshot(
      first,
      makeSnapshot(2, {
        findings: [makeFinding({ count: 2, lastAt: 20 })],
        info: makeInfo({ readerMode: 'paused' }),
      }),
    );
    expect(second.findings[0].count).toBe(2);
    expect(second.info.readerMode).toBe('paused');
  });

  it('ignores a stale or repeated snapshot', () => {
    const first = applySnapshot(undefined, makeSnapshot(5));
    expect(applySnapshot(first, makeSnapshot(5, { frames: [makeFrame(1)] }))).toBe(first);
    expect(applySnapshot(first, makeSnapshot(4))).toBe(first);
  });
});

describe('sameInfo', () => {
  it('notices the handshake, exits and tool lists', () => {
    const a = makeInfo();
    expect(sameInfo(a, makeInfo())).toBe(true);
    expect(
      sameInfo(a, makeInfo({ serverInfo: { name: 'x', version: '1', protocolVersion: 'p' } })),
    ).toBe(false);
    expect(sameInfo(a, makeInfo({ exit: { code: 0, signal: null } }))).toBe(false);
    expect(sameInfo(a, makeInfo({ tools: [{ name: 'dump', inputSchema: {} }] }))).toBe(false);
    expect(sameInfo(a, makeInfo({ args: ['other.js'] }))).toBe(false);
  });
});

describe('reduceEvent', () => {
  it('adds sessions from the list and keeps their data on the next list', () => {
    let state = reduceEvent(emptyDataState(), { type: 'sessions', sessions: [makeInfo()] });
    state = reduceEvent(state, { type: 'snapshot', snapshot: makeSnapshot(1) });
    const data = state.bySession.s1;
    state = reduceEvent(state, { type: 'sessions', sessions: [makeInfo()] });
    expect(state.bySession.s1).toBe(data);
  });

  it('creates a session when its snapshot arrives before the list', () => {
    const state = reduceEvent(emptyDataState(), { type: 'snapshot', snapshot: makeSnapshot(1) });
    expect(state.sessions.map((s) => s.id)).toEqual(['s1']);
    expect(state.bySession.s1.seq).toBe(1);
  });

  it('drops closed sessions and ignores their late snapshots', () => {
    let state = reduceEvent(emptyDataState(), { type: 'sessions', sessions: [makeInfo()] });
    state = reduceEvent(state, { type: 'sessions', sessions: [] });
    expect(state.bySession.s1).toBeUndefined();
    const after = reduceEvent(state, { type: 'snapshot', snapshot: makeSnapshot(9) });
    expect(after).toBe(state);
  });

  it('moves the active tab to a neighbour when the active session closes', () => {
    const a = makeInfo({ id: 'a' });
    const b = makeInfo({ id: 'b' });
    const c = makeInfo({ id: 'c' });
    let state = reduceEvent(emptyDataState(), { type: 'sessions', sessions: [a, b, c] });
    state = { ...state, activeId: 'b' };
    expect(reduceEvent(state, { type: 'sessions', sessions: [a, c] }).activeId).toBe('c');
    state = { ...state, activeId: 'c' };
    expect(reduceEvent(state, { type: 'sessions', sessions: [a, b] }).activeId).toBe('b');
    expect(reduceEvent(state, { type: 'sessions', sessions: [] }).activeId).toBeNull();
  });

  it('updates the tab list when a snapshot changes the session state', () => {
    let state = reduceEvent(emptyDataState(), { type: 'sessions', sessions: [makeInfo()] });
    const sessions = state.sessions;
    state = reduceEvent(state, { type: 'snapshot', snapshot: makeSnapshot(1) });
    expect(state.sessions).toBe(sessions);
    state = reduceEvent(state, {
      type: 'snapshot',
      snapshot: makeSnapshot(2, { info: makeInfo({ state: 'stopped' }) }),
    });
    expect(state.sessions[0].state).toBe('stopped');
  });

  it('uses the default limits when none are given', () => {
    let state = emptyDataState();
    for (let seq = 1; seq <= DEFAULT_LIMITS.points + 10; seq += 1) {
      state = reduceEvent(state, { type: 'snapshot', snapshot: makeSnapshot(seq) });
    }
    expect(state.bySession.s1.points).toHaveLength(DEFAULT_LIMITS.points);
  });
});

describe('openSession', () => {
  it('adds a started session once and activates it', () => {
    let state = openSession(emptyDataState(), makeInfo({ id: 'x' }));
    state = openSession(state, makeInfo({ id: 'x' }));
    expect(state.sessions).toHaveLength(1);
    expect(state.activeId).toBe('x');
  });
});

describe('applySessions', () => {
  it('keeps closed ids bounded', () => {
    let state = emptyDataState();
    for (let i = 0; i < 300; i += 1) {
      state = applySessions(state, [makeInfo({ id: `s${i}` })]);
    }
    expect(state.closedIds.length).toBeLessThanOrEqual(200);
    expect(state.closedIds.at(-1)).toBe('s298');
  });
});

describe('frame rate', () => {
  const at = (seq: number, frames: number) =>
    makeSnapshot(seq, { metrics: { ...makeSnapshot(seq).metrics, frames } });

  it('smooths frames per second from the cumulative counter', () => {
    let data = applySnapshot(undefined, at(1, 0));
    expect(data.frameRate).toBe(0);
    // 5000 frames per 50 ms snapshot: 100,000 frames/s; the average climbs towards it.
    for (let seq = 2; seq <= 40; seq += 1) data = applySnapshot(data, at(seq, (seq - 1) * 5000));
    expect(data.frameRate).toBeGreaterThan(90_000);
    expect(data.frameRate).toBeLessThanOrEqual(100_000);
    // The flood stops: the rate decays, one quiet snapshot does not zero it.
    const quiet = applySnapshot(data, at(41, 39 * 5000));
    expect(quiet.frameRate).toBeGreaterThan(1000);
    expect(quiet.frameRate).toBeLessThan(data.frameRate);
  });

  it('ignores snapshots without time passing', () => {
    const data = { ...applySnapshot(undefined, at(1, 0)), frameRate: 42 };
    expect(nextFrameRate(data, at(1, 100))).toBe(42);
  });
});

describe('a server that is over (issue 22)', () => {
  const ended = (seq: number, t: number) =>
    makeSnapshot(seq, {
      info: makeInfo({ state: 'stopped', end: { by: 'server', at: 1 } }),
      point: { ...makeSnapshot(seq).point, t },
    });

  it('appends its repeated last chart point once', () => {
    let data = applySnapshot(undefined, makeSnapshot(1));
    const t = (data.points.at(-1)?.t ?? 0) + 100;
    for (let seq = 2; seq <= 20; seq += 1) data = applySnapshot(data, ended(seq, t));
    expect(data.points.map((p) => p.t)).toEqual([data.points[0].t, t]);
    expect(data.seq).toBe(20);
  });

  it('has no frame rate, and a change of who ended it is a change of info', () => {
    const running = { ...applySnapshot(undefined, makeSnapshot(1)), frameRate: 5000 };
    expect(applySnapshot(running, ended(2, 999)).frameRate).toBe(0);
    const a = makeInfo({ state: 'stopped', end: { by: 'server', at: 1 } });
    expect(sameInfo(a, { ...a, end: { by: 'user', at: 1 } })).toBe(false);
    expect(sameInfo(a, { ...a, startErrorCode: 'ENOENT' })).toBe(false);
    expect(sameInfo(a, { ...a, end: { by: 'server', at: 1 } })).toBe(true);
  });
});

describe('a restart takes the place of the session it replaces', () => {
  it('shows the new session when the active one is replaced in place', () => {
    let state = emptyDataState();
    state = applySessions(state, [
      makeInfo({ id: 'a' }),
      makeInfo({ id: 'b' }),
      makeInfo({ id: 'c' }),
    ]);
    state = { ...state, activeId: 'b' };
    const next = applySessions(state, [
      makeInfo({ id: 'a' }),
      makeInfo({ id: 'b2' }),
      makeInfo({ id: 'c' }),
    ]);
    expect(next.activeId).toBe('b2');
  });

  it('shows the neighbour when the active one is only closed', () => {
    let state = emptyDataState();
    state = applySessions(state, [
      makeInfo({ id: 'a' }),
      makeInfo({ id: 'b' }),
      makeInfo({ id: 'c' }),
    ]);
    state = { ...state, activeId: 'b' };
    expect(applySessions(state, [makeInfo({ id: 'a' }), makeInfo({ id: 'c' })]).activeId).toBe('c');
    const last = { ...state, activeId: 'c' };
    expect(applySessions(last, [makeInfo({ id: 'a' }), makeInfo({ id: 'b' })]).activeId).toBe('b');
  });
});
