import { describe, expect, it } from 'vitest';
import { makeFinding, makeInfo, makeRequest, makeSnapshot } from '../../test/fixtures/host-data';
import { applySnapshot, emptySessionData } from './reducers';
import {
  canCancel,
  cancelTarget,
  canReplay,
  groupFindings,
  handshakeState,
  hasCancellation,
  replayTarget,
  selectRequestsNewestFirst,
  sortRequests,
  waterfallBar,
  waterfallSpan,
} from './selectors';

function table(...records: ReturnType<typeof makeRequest>[]) {
  return new Map(records.map((r) => [r.id, r]));
}

describe('request selectors', () => {
  const init = makeRequest({ id: 0, method: 'initialize', sentAt: 0 });
  const done = makeRequest({ id: 1, status: 'completed', sentAt: 10, latencyMs: 5 });
  const slow = makeRequest({ id: 2, status: 'pending', sentAt: 20 });
  const newest = makeRequest({ id: 3, status: 'pending', sentAt: 30 });

  it('sorts newest first and memoizes on the map', () => {
    const m = table(init, done, slow, newest);
    expect(sortRequests(m).map((r) => r.id)).toEqual([3, 2, 1, 0]);
    expect(selectRequestsNewestFirst(m)).toBe(selectRequestsNewestFirst(m));
  });

  it('never cancels initialize or a finished request', () => {
    expect(canCancel(makeRequest({ method: 'initialize' }))).toBe(false);
    expect(canCancel(done)).toBe(false);
    expect(canCancel(slow)).toBe(true);
    expect(canReplay(init)).toBe(false);
    expect(canReplay(done)).toBe(true);
  });

  it('cancels the selected request, else the most recent in-flight one', () => {
    const m = table(init, done, slow, newest);
    expect(cancelTarget(m, 2)?.id).toBe(2);
    expect(cancelTarget(m, 1)?.id).toBe(3);
    expect(cancelTarget(m, null)?.id).toBe(3);
    expect(cancelTarget(table(init, done), null)).toBeNull();
    const pendingInit = makeRequest({ id: 0, method: 'initialize' });
    expect(cancelTarget(table(pendingInit), 0)).toBeNull();
  });

  it('replays the selected request, else the most recent replayable one', () => {
    const m = table(init, done);
    expect(replayTarget(m, 1)?.id).toBe(1);
    expect(replayTarget(m, 0)?.id).toBe(1);
    expect(replayTarget(table(init), null)).toBeNull();
  });

  it('draws waterfall bars inside the span; pending bars run to now', () => {
    const rows = [done, slow];
    const span = waterfallSpan(rows, 40);
    expect(span).toEqual({ start: 10, end: 40 });
    const a = waterfallBar(done, span, 40);
    expect(a.left).toBe(0);
    expect(a.width).toBeCloseTo((5 / 30) * 100);
    const b = waterfallBar(slow, span, 40);
    expect(b.left).toBeCloseTo((10 / 30) * 100);
    expect(b.left + b.width).toBeCloseTo(100);
    expect(waterfallSpan([], 0)).toEqual({ start: 0, end: 1 });
    const cancelled = makeRequest({ id: 9, status: 'cancelled', sentAt: 10, cancelledAt: 25 });
    expect(waterfallBar(cancelled, span, 40).width).toBeCloseTo((15 / 30) * 100);
  });
});

describe('hasCancellation', () => {
  it('is true once a cancellation was sent or a request was cancelled', () => {
    const data = emptySessionData(makeInfo());
    expect(hasCancellation(data)).toBe(false);
    const cancelled = applySnapshot(
      data,
      makeSnapshot(1, { requests: [makeRequest({ status: 'cancelled', cancelledAt: 5 })] }),
    );
    expect(hasCancellation(cancelled)).toBe(true);
  });
});

describe('groupFindings', () => {
  it('groups by code with errors first and sums counts', () => {
    const groups = groupFindings([
      makeFinding({ code: 'cancel-ignored', level: 'warn', firstAt: 1 }),
      makeFinding({ code: 'request-timed-out', level: 'error', firstAt: 5, requestId: 1 }),
      makeFinding({
        code: 'request-timed-out',
        level: 'error',
        firstAt: 3,
        requestId: 2,
        count: 2,
      }),
    ]);
    expect(groups.map((g) => g.code)).toEqual(['request-timed-out', 'cancel-ignored']);
    expect(groups[0].count).toBe(3);
    expect(groups[0].firstAt).toBe(3);
    expect(groups[0].messages).toHaveLength(2);
  });
});

describe('handshakeState', () => {
  it('is done once serverInfo or a handshake error is known', () => {
    expect(handshakeState(emptySessionData(makeInfo()))).toBe('pending');
    expect(handshakeState(emptySessionData(makeInfo({ handshakeError: 'timeout' })))).toBe('done');
  });
});
