import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonRpcId, RequestRecord, RequestStatus } from '../../../shared/requests.js';
import { RequestTable, type ResponseInfo } from './request-table.js';

interface Harness {
  table: RequestTable;
  changes: RequestStatus[];
  late: JsonRpcId[];
  held: { id: JsonRpcId; t: number; status: RequestStatus }[];
}

/** A table whose holdLate hook answers `hold` (undefined: no hook at all). */
function make(hold?: (r: RequestRecord, t: number) => boolean): Harness {
  const h: Omit<Harness, 'table'> = { changes: [], late: [], held: [] };
  const table = new RequestTable({
    onChange: (r) => h.changes.push(r.status),
    onTimeout: () => {},
    onUnexpected: () => {},
    onLate: (r) => h.late.push(r.id),
    ...(hold
      ? {
          holdLate: (r: RequestRecord, t: number) => {
            h.held.push({ id: r.id, t, status: r.status });
            return hold(r, t);
          },
        }
      : {}),
  });
  return { table, ...h };
}

function add(table: RequestTable, id: JsonRpcId, t = 0): void {
  void table.add(id, 'tools/call', { name: 'x' }, { t, requestBytes: 40, progressToken: null });
}

function resp(t: number, bytes = 100): ResponseInfo {
  return { t, bytes, data: Buffer.alloc(bytes, 0x20) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RequestTable: holdLate', () => {
  it('held: an answer after the cancellation keeps the cancelled status, recorded, not late', () => {
    const h = make(() => true);
    add(h.table, 1, 0);
    h.table.markCancelled(1, 100, 'user');
    const r = h.table.respond(1, resp(5000, 321));
    expect(h.held).toEqual([{ id: 1, t: 5000, status: 'cancelled' }]);
    expect(r).toMatchObject({ status: 'cancelled', latencyMs: 5000, responseBytes: 321 });
    expect(h.late).toEqual([]);
    expect(h.changes.at(-1)).toBe('cancelled');
  });

  it('held: a timed-out request (cancellation sent) stays timed-out', () => {
    vi.useFakeTimers();
    const h = make(() => true);
    add(h.table, 1, 0);
    h.table.armTimeout(1, 1000, 0);
    vi.advanceTimersByTime(1000);
    const r = h.table.get(1);
    if (!r) throw new Error('no record');
    expect(r.status).toBe('timed-out');
    // The session sets the cancellation of a timeout on the record itself.
    r.cancelledAt = 1000;
    r.cancelReason = 'timeout';
    h.table.respond(1, resp(9000));
    expect(h.table.get(1)?.status).toBe('timed-out');
    expect(h.late).toEqual([]);
  });

  it('not held: late, as without the hook', () => {
    const h = make(() => false);
    add(h.table, 1, 0);
    h.table.markCancelled(1, 100, 'user');
    h.table.respond(1, resp(5000));
    expect(h.held).toHaveLength(1);
    expect(h.table.get(1)?.status).toBe('late');
    expect(h.late).toEqual([1]);
    const plain = make();
    add(plain.table, 1, 0);
    plain.table.markCancelled(1, 100, 'user');
    plain.table.respond(1, resp(5000));
    expect(plain.table.get(1)?.status).toBe('late');
  });

  it('is not asked for an answer in time, nor for one that came before the cancellation', () => {
    const h = make(() => true);
    add(h.table, 1, 0);
    h.table.respond(1, resp(50));
    add(h.table, 2, 0);
    h.table.markCancelled(2, 100, 'user');
    h.table.respond(2, resp(100));
    expect(h.held).toEqual([]);
    expect(h.table.get(1)?.status).toBe('completed');
    expect(h.table.get(2)?.status).toBe('completed');
  });
});

describe('RequestTable: markLate / unmarkLate', () => {
  it('markLate: a held answer turned out late (onLate, then onChange)', () => {
    const h = make(() => true);
    add(h.table, 1, 0);
    h.table.markCancelled(1, 100, 'user');
    const r = h.table.respond(1, resp(5000));
    if (!r) throw new Error('no record');
    const before = h.changes.length;
    h.table.markLate(r);
    expect(r.status).toBe('late');
    expect(h.late).toEqual([1]);
    expect(h.changes.slice(before)).toEqual(['late']);
  });

  it('unmarkLate: back to cancelled, or to timed-out for a timeout', () => {
    const h = make();
    add(h.table, 1, 0);
    h.table.markCancelled(1, 100, 'user');
    const r = h.table.respond(1, resp(5000));
    if (!r) throw new Error('no record');
    expect(r.status).toBe('late');
    h.table.unmarkLate(r);
    expect(r.status).toBe('cancelled');
    expect(h.changes.at(-1)).toBe('cancelled');

    add(h.table, 2, 0);
    h.table.markCancelled(2, 100, 'timeout');
    const t = h.table.respond(2, resp(6000));
    if (!t) throw new Error('no record');
    h.table.unmarkLate(t);
    expect(t.status).toBe('timed-out');
  });

  it('unmarkLate leaves a record that is not late alone', () => {
    const h = make();
    add(h.table, 1, 0);
    h.table.respond(1, resp(50));
    const r = h.table.get(1);
    if (!r) throw new Error('no record');
    const before = h.changes.length;
    h.table.unmarkLate(r);
    expect(r.status).toBe('completed');
    expect(h.changes).toHaveLength(before);
  });
});
