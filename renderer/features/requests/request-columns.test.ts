import { describe, expect, it } from 'vitest';
import { type RequestRecord, sentRecord } from '../../../shared/requests';
import { DEFAULT_SORT, latencyCell, nextSort, requestPair, sortRequests } from './request-columns';

const rec = (id: number, over: Partial<RequestRecord> = {}): RequestRecord => ({
  ...sentRecord({ id, method: 'tools/call', sentAt: id * 100, requestBytes: 50 }),
  ...over,
});

describe('latency of a row', () => {
  it('a cancelled request shows its time to the cancellation', () => {
    const r = rec(1, { status: 'cancelled', cancelledAt: 1300, cancelReason: 'user' });
    expect(latencyCell(r, 5000)).toMatchObject({ text: '⊘ 1.20 s', kind: 'cancel' });
    expect(latencyCell(r, 5000).title).toMatch(/cancelled 1.20 s after it was sent; no answer$/);
  });

  it('a late one shows its time to the late answer, and when it was cancelled', () => {
    const r = rec(1, { status: 'late', cancelledAt: 1100, latencyMs: 3000, responseBytes: 10 });
    const cell = latencyCell(r, 9000);
    expect(cell).toMatchObject({ text: '3.00 s', kind: 'late' });
    expect(cell.title).toMatch(/2.00 s after the cancellation \(sent 1.00 s after the request\)/);
  });

  it('a timed-out one says so; a pending one counts up', () => {
    const t = rec(2, { status: 'timed-out', cancelledAt: 5200, cancelReason: 'timeout' });
    expect(latencyCell(t, 9000).title).toMatch(/^timed out 5.00 s/);
    expect(latencyCell(rec(3), 1300)).toMatchObject({ text: '1.00 s', kind: 'waiting' });
  });
});

describe('sorting', () => {
  const rows = [
    rec(1, { latencyMs: 30, responseBytes: 5000, status: 'completed' }),
    rec(2, { status: 'cancelled', cancelledAt: 700 }), // 500 ms to cancel, no size
    rec(3, { latencyMs: 10, responseBytes: 100, status: 'completed' }),
  ];

  it('by latency, cancellations counted by their time to cancel', () => {
    const ids = (s: typeof DEFAULT_SORT) => sortRequests(rows, s, 1000).map((r) => r.id);
    expect(ids({ key: 'latency', dir: 'desc' })).toEqual([2, 1, 3]);
    expect(ids({ key: 'latency', dir: 'asc' })).toEqual([3, 1, 2]);
  });

  it('by size, rows without an answer last both ways', () => {
    const ids = (dir: 'asc' | 'desc') =>
      sortRequests(rows, { key: 'size', dir }, 1000).map((r) => r.id);
    expect(ids('desc')).toEqual([1, 3, 2]);
    expect(ids('asc')).toEqual([3, 1, 2]);
  });

  it('a click on a new column sorts it largest first, again flips it', () => {
    expect(nextSort(DEFAULT_SORT, 'size')).toEqual({ key: 'size', dir: 'desc' });
    expect(nextSort({ key: 'size', dir: 'desc' }, 'size')).toEqual({ key: 'size', dir: 'asc' });
  });
});

describe('the request/response pair', () => {
  it('is one JSON document with both lines parsed, and timing', () => {
    const r = rec(4, { status: 'completed', latencyMs: 12.5 });
    const pair = JSON.parse(
      requestPair(r, '{"jsonrpc":"2.0","id":4,"method":"tools/call"}', '{"id":4,"result":{}}'),
    );
    expect(pair).toMatchObject({
      id: 4,
      status: 'completed',
      latencyMs: 12.5,
      request: { method: 'tools/call' },
      response: { result: {} },
    });
    const noAnswer = JSON.parse(requestPair(rec(5, { cancelledAt: 900 }), 'not json', null));
    expect(noAnswer).toMatchObject({ request: 'not json', response: null, cancelledAfterMs: 400 });
  });
});
