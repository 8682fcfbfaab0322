import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonRpcId, RequestRecord, RequestStatus } from '../../../shared/requests.js';
import { type RequestOutcome, RequestTable, type ResponseInfo } from './request-table.js';

interface Harness {
  table: RequestTable;
  changes: RequestStatus[];
  timeouts: JsonRpcId[];
  unexpected: { id: JsonRpcId | null; why: string }[];
  late: JsonRpcId[];
}

function make(): Harness {
  const h: Omit<Harness, 'table'> = { changes: [], timeouts: [], unexpected: [], late: [] };
  const table = new RequestTable({
    onChange: (r: RequestRecord) => h.changes.push(r.status),
    onTimeout: (r) => h.timeouts.push(r.id),
    onUnexpected: (id, why) => h.unexpected.push({ id, why }),
    onLate: (r) => h.late.push(r.id),
  });
  return { table, ...h };
}

function add(
  table: RequestTable,
  id: JsonRpcId,
  t = 0,
  progressToken: JsonRpcId | null = null,
): Promise<RequestOutcome> {
  return table.add(id, 'tools/call', { name: 'x' }, { t, requestBytes: 40, progressToken });
}

function resp(t: number, bytes = 100, error?: ResponseInfo['error']): ResponseInfo {
  return { t, bytes, data: Buffer.alloc(bytes, 0x20), ...(error ? { error } : {}) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RequestTable states', () => {
  it('starts pending with its send time and request size', () => {
    const h = make();
    void add(h.table, 1, 12);
    const r = h.table.get(1);
    expect(r).toMatchObject({
      id: 1,
      method: 'tools/call',
      status: 'pending',
      sentAt: 12,
      requestBytes: 40,
      latencyMs: null,
      responseBytes: null,
    });
    expect(h.table.params(1)).toEqual({ name: 'x' });
    expect(h.table.inFlight().map((x) => x.id)).toEqual([1]);
    expect(h.changes).toEqual(['pending']);
  });

  it('pending → completed with latency = response t − sentAt and the response bytes', async () => {
    const h = make();
    const done = add(h.table, 'a', 100);
    const r = h.table.respond('a', resp(142.5, 300));
    expect(r?.status).toBe('completed');
    expect(r?.latencyMs).toBe(42.5);
    expect(r?.responseBytes).toBe(300);
    const outcome = await done;
    expect(outcome.record.status).toBe('completed');
    expect(outcome.response?.length).toBe(300);
    expect(h.table.inFlight()).toEqual([]);
    expect(h.changes).toEqual(['pending', 'completed']);
  });

  it('pending → failed on an error response, keeping the error', async () => {
    const h = make();
    const done = add(h.table, 2, 0);
    h.table.respond(2, resp(5, 50, { code: -32602, message: 'bad params' }));
    const outcome = await done;
    expect(outcome.record.status).toBe('failed');
    expect(outcome.record.error).toEqual({ code: -32602, message: 'bad params' });
    expect(outcome.response).not.toBeNull();
  });

  it('pending → cancelled, then a response makes it late (onLate, no unexpected)', async () => {
    const h = make();
    const done = add(h.table, 3, 10);
    const c = h.table.markCancelled(3, 20, 'user');
    expect(c?.status).toBe('cancelled');
    expect(c?.cancelledAt).toBe(20);
    expect(c?.cancelReason).toBe('user');
    const outcome = await done;
    expect(outcome.record.status).toBe('cancelled');
    expect(outcome.response).toBeNull();

    const r = h.table.respond(3, resp(60, 70));
    expect(r?.status).toBe('late');
    expect(r?.latencyMs).toBe(50);
    expect(r?.responseBytes).toBe(70);
    expect(h.late).toEqual([3]);
    expect(h.unexpected).toEqual([]);
    expect(h.changes).toEqual(['pending', 'cancelled', 'late']);
  });

  it('markCancelled of a non-pending or unknown request returns null and changes nothing', () => {
    const h = make();
    void add(h.table, 4);
    h.table.respond(4, resp(1));
    expect(h.table.markCancelled(4, 2, 'late click')).toBeNull();
    expect(h.table.get(4)?.status).toBe('completed');
    expect(h.table.get(4)?.cancelledAt).toBeNull();
    expect(h.table.markCancelled(999, 2, 'x')).toBeNull();
    void add(h.table, 5);
    h.table.markCancelled(5, 1, 'first');
    expect(h.table.markCancelled(5, 2, 'second')).toBeNull();
    expect(h.table.get(5)?.cancelReason).toBe('first');
  });

  it('a response to an unknown id or id null is unexpected', () => {
    const h = make();
    expect(h.table.respond(77, resp(1))).toBeNull();
    expect(h.table.respond(null, resp(1))).toBeNull();
    expect(h.unexpected).toEqual([
      { id: 77, why: 'unknown id' },
      { id: null, why: 'response with id null' },
    ]);
  });

  it('numeric and string ids are distinct', () => {
    const h = make();
    void add(h.table, 1);
    expect(h.table.respond('1', resp(1))).toBeNull();
    expect(h.table.get(1)?.status).toBe('pending');
    expect(h.unexpected).toHaveLength(1);
  });

  it('a duplicate response is unexpected and does not change the first outcome', () => {
    const h = make();
    void add(h.table, 6, 0);
    h.table.respond(6, resp(10, 100));
    const again = h.table.respond(6, resp(30, 999, { code: 1, message: 'x' }));
    expect(again?.status).toBe('completed');
    expect(again?.latencyMs).toBe(10);
    expect(again?.responseBytes).toBe(100);
    expect(again?.error).toBeNull();
    expect(h.unexpected).toEqual([{ id: 6, why: 'second response for the same id' }]);
  });

  it('a second response after a late one is unexpected, not late again', () => {
    const h = make();
    void add(h.table, 7);
    h.table.markCancelled(7, 1, 'x');
    h.table.respond(7, resp(2));
    h.table.respond(7, resp(3));
    expect(h.late).toEqual([7]);
    expect(h.unexpected).toHaveLength(1);
    expect(h.table.get(7)?.status).toBe('late');
  });

  it('allocates increasing ids', () => {
    const h = make();
    const a = h.table.allocateId();
    const b = h.table.allocateId();
    expect(b).toBe(a + 1);
  });

  it('release() settles pending promises without changing state', async () => {
    const h = make();
    const done = add(h.table, 8);
    h.table.release();
    const o = await done;
    expect(o.record.status).toBe('pending');
    expect(o.response).toBeNull();
  });
});

describe('RequestTable timeouts', () => {
  it('times out after the soft timeout: status, onTimeout, promise settled', async () => {
    vi.useFakeTimers();
    const h = make();
    const done = add(h.table, 1);
    h.table.armTimeout(1, 1000, 5000);
    vi.advanceTimersByTime(999);
    expect(h.table.get(1)?.status).toBe('pending');
    vi.advanceTimersByTime(1);
    expect(h.table.get(1)?.status).toBe('timed-out');
    expect(h.timeouts).toEqual([1]);
    expect((await done).record.status).toBe('timed-out');
    // The hard timer was cleared with the soft one: no second timeout.
    vi.advanceTimersByTime(10_000);
    expect(h.timeouts).toEqual([1]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('progress resets the soft timeout', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1, 0, 'tok');
    h.table.armTimeout(1, 1000, 0);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(800);
      const r = h.table.progress('tok', i);
      expect(r?.id).toBe(1);
    }
    expect(h.table.get(1)?.status).toBe('pending');
    expect(h.table.get(1)?.progressCount).toBe(5);
    expect(h.table.get(1)?.lastProgress).toBe(4);
    vi.advanceTimersByTime(1000);
    expect(h.table.get(1)?.status).toBe('timed-out');
  });

  it('the hard timeout fires even while progress keeps resetting the soft one', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1, 0, 'tok');
    h.table.armTimeout(1, 1000, 3000);
    for (let t = 500; t < 3000; t += 500) {
      vi.advanceTimersByTime(500);
      h.table.progress('tok', t);
      expect(h.table.get(1)?.status).toBe('pending');
    }
    vi.advanceTimersByTime(500);
    expect(h.table.get(1)?.status).toBe('timed-out');
    expect(h.timeouts).toEqual([1]);
  });

  it('a response after the timeout and its cancellation is late', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1, 0);
    h.table.armTimeout(1, 100, 0);
    vi.advanceTimersByTime(100);
    const rec = h.table.get(1) as RequestRecord;
    rec.cancelledAt = 100; // what the session does when it sends the cancellation
    const r = h.table.respond(1, resp(150));
    expect(r?.status).toBe('late');
    expect(r?.latencyMs).toBe(150);
    expect(h.late).toEqual([1]);
  });

  it('with no cancellation sent (initialize), a response after the timeout leaves it timed-out', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1, 0);
    h.table.armTimeout(1, 100, 0);
    vi.advanceTimersByTime(100);
    const r = h.table.respond(1, resp(150, 30));
    expect(r?.status).toBe('timed-out');
    expect(r?.latencyMs).toBe(150);
    expect(r?.responseBytes).toBe(30);
    expect(h.late).toEqual([]);
    expect(h.changes).toEqual(['pending', 'timed-out', 'timed-out']);
  });

  it('an answer that arrived before the cancellation, held in the host queue, is not late', () => {
    const h = make();
    void add(h.table, 1, 0);
    void add(h.table, 2, 0);
    h.table.markCancelled(1, 100, 'user');
    h.table.markCancelled(2, 100, 'timeout');
    // Dispatched after the cancellation, but here (t) before it: answered in time.
    expect(h.table.respond(1, resp(90))?.status).toBe('completed');
    const failed = h.table.respond(2, resp(100, 50, { code: -1, message: 'no' }));
    expect(failed?.status).toBe('failed');
    expect(failed?.latencyMs).toBe(100);
    expect(h.late).toEqual([]);
  });

  it('a completed request never times out', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1, 0);
    h.table.armTimeout(1, 100, 200);
    h.table.respond(1, resp(5));
    vi.advanceTimersByTime(1000);
    expect(h.table.get(1)?.status).toBe('completed');
    expect(h.timeouts).toEqual([]);
  });

  it('armTimeout does nothing for a zero timeout or a non-pending request', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1);
    h.table.armTimeout(1, 0, 100);
    expect(vi.getTimerCount()).toBe(0);
    h.table.respond(1, resp(1));
    h.table.armTimeout(1, 10, 10);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('progress for an unknown token returns null; after completion it is still counted', () => {
    const h = make();
    expect(h.table.progress('nope', 1)).toBeNull();
    void add(h.table, 1, 0, 'tok');
    h.table.respond(1, resp(1));
    const r = h.table.progress('tok', undefined);
    expect(r?.progressCount).toBe(1);
    expect(r?.lastProgress).toBeNull();
  });

  it('timeoutAll ends every pending request and leaves finished ones', () => {
    vi.useFakeTimers();
    const h = make();
    void add(h.table, 1);
    void add(h.table, 2);
    void add(h.table, 3);
    h.table.armTimeout(2, 1000, 0);
    h.table.respond(3, resp(1));
    const out = h.table.timeoutAll();
    expect(out.map((r) => r.id)).toEqual([1, 2]);
    expect(h.timeouts).toEqual([1, 2]);
    expect(h.table.get(3)?.status).toBe('completed');
    expect(vi.getTimerCount()).toBe(0);
    expect(h.table.timeoutAll()).toEqual([]);
  });
});

describe('RequestTable eviction', () => {
  it('evicts the oldest finished records past 5000 and keeps pending ones', () => {
    const h = make();
    for (let i = 1; i <= 10; i++) void add(h.table, i);
    for (let i = 11; i <= 6000; i++) {
      void add(h.table, i);
      h.table.respond(i, resp(1));
    }
    expect(h.table.all()).toHaveLength(5000);
    expect(h.table.evicted).toBe(1000);
    for (let i = 1; i <= 10; i++) expect(h.table.get(i)?.status).toBe('pending');
    // The oldest finished ones went first.
    expect(h.table.get(11)).toBeUndefined();
    expect(h.table.get(1010)).toBeUndefined();
    expect(h.table.get(1011)?.status).toBe('completed');
    expect(h.table.get(6000)?.status).toBe('completed');
    expect(h.table.inFlight()).toHaveLength(10);
  });
});

describe('RequestTable.inFlight (kept as requests change, not found by a scan)', () => {
  type Op =
    | { op: 'add'; id: JsonRpcId }
    | { op: 'respond' | 'cancel' | 'fail'; id: JsonRpcId }
    | { op: 'failPending' | 'timeoutAll' };
  // Few ids, numbers and their string twins: reused ids, answers to unknown ones, repeats.
  const id = fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom('1', '2', 'x'));
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 4, arbitrary: id.map((i) => ({ op: 'add' as const, id: i })) },
    { weight: 3, arbitrary: id.map((i) => ({ op: 'respond' as const, id: i })) },
    { weight: 1, arbitrary: id.map((i) => ({ op: 'cancel' as const, id: i })) },
    { weight: 1, arbitrary: id.map((i) => ({ op: 'fail' as const, id: i })) },
    { weight: 1, arbitrary: fc.constantFrom<Op>({ op: 'failPending' }, { op: 'timeoutAll' }) },
  );

  it('is exactly the pending records, in the order they were sent', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const h = make();
        let t = 0;
        for (const o of ops) {
          t += 1;
          if (o.op === 'add') void add(h.table, o.id, t);
          else if (o.op === 'respond') h.table.respond(o.id, resp(t));
          else if (o.op === 'cancel') h.table.markCancelled(o.id, t, 'user');
          else if (o.op === 'fail') h.table.fail(o.id, { code: -1, message: 'x' });
          else if (o.op === 'failPending') h.table.failPending({ code: -1, message: 'gone' });
          else h.table.timeoutAll();
          const got = h.table.inFlight();
          const want = h.table.all().filter((r) => r.status === 'pending');
          const key = (r: RequestRecord): string => `${typeof r.id}:${r.id}@${r.sentAt}`;
          expect(got.map(key).sort()).toEqual(want.map(key).sort());
          expect(h.table.pendingCount).toBe(want.length);
          expect(got.map((r) => r.sentAt)).toEqual(
            [...got.map((r) => r.sentAt)].sort((a, b) => a - b),
          );
        }
        h.table.release();
      }),
      { numRuns: 300 },
    );
  });
});
