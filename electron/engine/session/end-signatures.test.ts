import { describe, expect, it, vi } from 'vitest';
import type { FindingCode } from '../../../shared/findings.js';
import { type RequestRecord, sentRecord } from '../../../shared/requests.js';
import { DEFAULT_BUDGETS } from '../../../shared/session-options.js';
import { EndSignatures } from './end-signatures.js';
import { FindingsEngine } from './findings-engine.js';

function make(lastBusyAt: number | null = null, echoes = 0) {
  const engine = new FindingsEngine(DEFAULT_BUDGETS, () => {});
  const late = vi.fn<(r: RequestRecord) => void>();
  const unlate = vi.fn<(r: RequestRecord) => void>();
  const end = new EndSignatures(DEFAULT_BUDGETS, engine, {
    late,
    unlate,
    lastBusyAt: () => lastBusyAt,
    echoes: () => echoes,
  });
  const find = (code: FindingCode) => engine.all().find((f) => f.code === code);
  const codes = () => engine.all().map((f) => f.code);
  return { engine, end, late, unlate, find, codes };
}

function record(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    ...sentRecord({ id: 3, method: 'tools/call', sentAt: 1000, requestBytes: 60 }),
    ...over,
  };
}

/** A request that timed out (its cancellation sent) and whose answer came at `answeredAt`. */
function answered(answeredAt: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const r = record({
    status: 'timed-out',
    cancelledAt: 4000,
    cancelReason: 'timeout',
    ...over,
  });
  r.latencyMs = answeredAt - r.sentAt;
  r.responseBytes = 120;
  return r;
}

/* ------------------------------------------------------------------------ handshake-failed */

describe('EndSignatures: handshake-failed', () => {
  const init = (over: Partial<RequestRecord>) =>
    record({ id: 1, method: 'initialize', sentAt: 10, ...over });

  it('an initialize answered with a JSON-RPC error names the code and message', () => {
    const h = make();
    h.end.changed(
      init({
        status: 'failed',
        responseBytes: 90,
        latencyMs: 5,
        error: { code: -32602, message: 'Unsupported protocol version' },
      }),
      15,
    );
    const f = h.find('handshake-failed');
    expect(f).toMatchObject({ level: 'error', requestId: 1, firstAt: 15 });
    expect(f?.message).toBe(
      'initialize (request 1) failed: the server answered it with error -32602: Unsupported ' +
        'protocol version; nothing else can work on this session',
    );
  });

  it('an initialize that timed out says how long it waited', () => {
    const h = make();
    h.end.changed(init({ status: 'timed-out' }), 30_010);
    expect(h.find('handshake-failed')?.message).toContain(
      'failed: no answer within 30000 ms (timed out)',
    );
  });

  it('an initialize failed without a response gives the host-side reason', () => {
    const h = make();
    h.end.changed(
      init({ status: 'failed', error: { code: -32000, message: 'the server exited (code 1)' } }),
      200,
    );
    const f = h.find('handshake-failed');
    expect(f?.message).toContain('failed: the server exited (code 1);');
    expect(f?.message).not.toContain('answered it with error');
  });

  it('a server that echoes our messages back (cat) is named as no MCP server', () => {
    const h = make(null, 2);
    // Pipescope answers the echoed initialize request itself: an error reply, read as the
    // server's answer.
    h.end.changed(
      init({
        status: 'failed',
        responseBytes: 80,
        error: { code: -32601, message: 'Method not found' },
      }),
      20,
    );
    const f = h.find('handshake-failed');
    expect(f?.message).toBe(
      "initialize (request 1) failed: the server's stdout echoed Pipescope's own messages back " +
        '(2 of them): this is not an MCP server (cat does this); nothing else can work on this ' +
        'session',
    );
    expect(f?.message).not.toContain('-32601');
  });

  it('echoes say nothing about an initialize that completed', () => {
    const h = make(null, 1);
    h.end.changed(init({ status: 'completed', latencyMs: 3, responseBytes: 100 }), 13);
    expect(h.codes()).toEqual([]);
  });

  it('is raised once', () => {
    const h = make();
    h.end.changed(init({ status: 'timed-out' }), 30_010);
    h.end.changed(init({ id: 2, status: 'failed', error: { code: -1, message: 'x' } }), 30_020);
    expect(h.engine.all()).toHaveLength(1);
    expect(h.find('handshake-failed')).toMatchObject({ count: 1, requestId: 1 });
  });

  it('says nothing for a pending or completed initialize or a failed tools/call', () => {
    const h = make();
    h.end.changed(init({ status: 'pending' }), 11);
    h.end.changed(init({ status: 'completed', latencyMs: 3, responseBytes: 100 }), 13);
    h.end.changed(
      record({ status: 'failed', responseBytes: 50, error: { code: -32601, message: 'no' } }),
      20,
    );
    expect(h.codes()).toEqual([]);
    // …and still raises later for a real failure.
    h.end.changed(init({ status: 'timed-out' }), 30_010);
    expect(h.codes()).toEqual(['handshake-failed']);
  });
});

/* ----------------------------------------------------------- answers after stdin closed */

describe('EndSignatures: an answer after the stop', () => {
  // Request 3 sent at 1000, timed out; the stop closes stdin at 10 000 (owed 9 s ≥ 2 s budget).
  const STOP = 10_000;

  it('held back, then flushed: stdout ends within 500 ms → server-output-buffered, not late', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const r = answered(10_100);
    expect(h.end.holdLate(r, 10_100)).toBe(true);
    h.end.ended(10_400, [r], false);
    expect(h.late).not.toHaveBeenCalled();
    expect(h.unlate).not.toHaveBeenCalled();
    const f = h.find('server-output-buffered');
    expect(f).toMatchObject({ level: 'error', requestId: 3, firstAt: 10_100 });
    expect(f?.message).toBe(
      'request 3 (tools/call) was answered only once its stdin was closed, just before stdout ' +
        'ended, 9.1 s after it was sent: the answer sat in a block-buffered stdout and was ' +
        'flushed at exit (not a late answer: the server never saw a reason to hold it)',
    );
    expect(f?.evidence).toEqual({
      requestId: 3,
      ms: 9100,
      flushedAt: 'only once its stdin was closed, just before stdout ended',
    });
  });

  it('the same answer with the process still running 2 s after is late after all', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const r = answered(10_100);
    expect(h.end.holdLate(r, 10_100)).toBe(true);
    h.end.ended(12_100, [r], false);
    expect(h.late).toHaveBeenCalledTimes(1);
    expect(h.late).toHaveBeenCalledWith(r);
    expect(h.codes()).toEqual([]);
  });

  it('a held answer with no end of stdout seen is late', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const r = answered(10_100);
    h.end.holdLate(r, 10_100);
    h.end.ended(null, [r], false);
    expect(h.late).toHaveBeenCalledWith(r);
  });

  it('a held answer is released once (a second end calls nothing more late)', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const r = answered(10_100);
    h.end.holdLate(r, 10_100);
    h.end.ended(12_100, [r], false);
    h.end.ended(12_100, [r], false);
    expect(h.late).toHaveBeenCalledTimes(1);
  });

  it('names several flushed answers, the first by id', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const a = answered(10_100);
    const b = answered(10_150, { id: 4, sentAt: 500 });
    h.end.ended(10_200, [a, b], false);
    expect(h.find('server-output-buffered')?.message).toMatch(
      /^request 3 \(tools\/call\) \(and 1 more\) was answered only once its stdin was closed/,
    );
  });

  it('rounds the seconds of an answer owed 10 s or more', () => {
    const h = make();
    h.end.stopAsked(20_000, true);
    const r = answered(20_100);
    h.end.ended(20_200, [r], false);
    expect(h.find('server-output-buffered')?.message).toContain(', 19 s after it was sent');
  });

  it('the first stop counts (a second stopAsked changes nothing)', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    h.end.stopAsked(STOP + 5000, false);
    expect(h.end.holdLate(answered(10_100), 10_100)).toBe(true);
  });
});

describe('EndSignatures: an answer as the server exits on its own', () => {
  it('calls unlate for a record already counted late, and names it', () => {
    const h = make();
    // No stop asked: the request table called it late when it came.
    const r = answered(8000, { status: 'late', cancelledAt: 5000, cancelReason: 'user' });
    expect(h.end.holdLate(r, 8000)).toBe(false);
    h.end.ended(8200, [r], true);
    expect(h.unlate).toHaveBeenCalledWith(r);
    expect(h.late).not.toHaveBeenCalled();
    expect(h.find('server-output-buffered')?.message).toContain(
      'was answered only as the server exited, just before stdout ended, 7.0 s after it was sent',
    );
  });

  it('does not call unlate for one that is not late (completed at the exit)', () => {
    const h = make();
    const r = record({ status: 'completed', latencyMs: 7000, responseBytes: 10 });
    h.end.ended(8100, [r], true);
    expect(h.unlate).not.toHaveBeenCalled();
    expect(h.codes()).toEqual(['server-output-buffered']);
  });

  it('says nothing when the session ended it (not on its own) and no stop was asked', () => {
    const h = make();
    const r = answered(8000, { status: 'late' });
    h.end.ended(8200, [r], false);
    expect(h.unlate).not.toHaveBeenCalled();
    expect(h.codes()).toEqual([]);
  });
});

describe('EndSignatures: guards', () => {
  const STOP = 10_000;

  it('progress: a request that reported progress is neither held nor named', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const r = answered(10_100, { progressCount: 2 });
    expect(h.end.holdLate(r, 10_100)).toBe(false);
    h.end.ended(10_200, [r], false);
    expect(h.codes()).toEqual([]);
  });

  it('a busy server: seen on CPU after the request was sent', () => {
    const h = make(1000);
    h.end.stopAsked(STOP, true);
    const r = answered(10_100);
    expect(h.end.holdLate(r, 10_100)).toBe(false);
    h.end.ended(10_200, [r], false);
    expect(h.codes()).toEqual([]);
  });

  it('busy only before the request was sent does not count', () => {
    const h = make(999);
    h.end.stopAsked(STOP, true);
    const r = answered(10_100);
    expect(h.end.holdLate(r, 10_100)).toBe(true);
    h.end.ended(10_200, [r], false);
    expect(h.codes()).toEqual(['server-output-buffered']);
  });

  it('a host that was not reading at the stop: its drain let the answer through', () => {
    const h = make();
    h.end.stopAsked(STOP, false);
    const r = answered(10_100);
    expect(h.end.holdLate(r, 10_100)).toBe(false);
    h.end.ended(10_200, [r], false);
    expect(h.codes()).toEqual([]);
  });

  it('owed under the budget at the stop: not held; answered under the budget: not named', () => {
    const h = make();
    h.end.stopAsked(2999, true); // owed 1999 ms
    expect(h.end.holdLate(answered(3100), 3100)).toBe(false);
    h.end.ended(3200, [answered(2999)], false); // latency 1999
    expect(h.codes()).toEqual([]);
    const g = make();
    g.end.stopAsked(3000, true); // owed exactly 2000 ms
    expect(g.end.holdLate(answered(3100), 3100)).toBe(true);
  });

  it('no stop asked, or an answer before it: not held', () => {
    const h = make();
    expect(h.end.holdLate(answered(10_100), 10_100)).toBe(false);
    h.end.stopAsked(STOP, true);
    expect(h.end.holdLate(answered(9_900), 9_900)).toBe(false);
  });

  it('initialize is never named here (handshake-failed covers it)', () => {
    const h = make();
    h.end.stopAsked(STOP, true);
    const r = answered(10_100, { id: 1, method: 'initialize' });
    h.end.ended(10_200, [r], false);
    expect(h.codes()).toEqual([]);
  });

  it('an answer more than 500 ms before the end is not flushed by it', () => {
    const h = make();
    const r = record({ status: 'completed', latencyMs: 7000, responseBytes: 10 }); // at 8000
    h.end.ended(8501, [r], true);
    expect(h.codes()).toEqual([]);
    h.end.ended(8500, [r], true);
    expect(h.codes()).toEqual(['server-output-buffered']);
  });
});
