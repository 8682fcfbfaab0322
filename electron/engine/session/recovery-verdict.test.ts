import { describe, expect, it } from 'vitest';
import { type RequestRecord, type RequestStatus, sentRecord } from '../../../shared/requests.js';
import { DEFAULT_BUDGETS } from '../../../shared/session-options.js';
import { FindingsEngine } from './findings-engine.js';
import { RecoveryVerdict } from './recovery-verdict.js';

const budgets = { ...DEFAULT_BUDGETS, dispatcherDepth: 100, recoveryMs: 100 };

function make() {
  const findings = new FindingsEngine(budgets, () => {});
  const verdict = new RecoveryVerdict(findings, budgets.recoveryMs, () => 0);
  const codes = () => findings.all().map((f) => f.code);
  return { verdict, codes };
}

function ping(status: RequestStatus, latencyMs: number | null): RequestRecord {
  return {
    ...sentRecord({ id: 9, method: 'ping', sentAt: 0, requestBytes: 30 }),
    status,
    latencyMs,
  };
}

describe('RecoveryVerdict', () => {
  it('a fast answer recovers; a slow one or none raises slow-recovery', () => {
    const fast = make();
    expect(fast.verdict.settle(ping('completed', 3.44), 0)).toEqual({
      method: 'ping',
      ok: true,
      latencyMs: 3.4,
    });
    expect(fast.codes()).toEqual([]);
    const slow = make();
    expect(slow.verdict.settle(ping('completed', 250), 0).ok).toBe(true);
    expect(slow.codes()).toEqual(['slow-recovery']);
    const none = make();
    expect(none.verdict.settle(ping('timed-out', null), 0).ok).toBe(false);
    expect(none.codes()).toEqual(['slow-recovery']);
  });

  it('timed out behind queued messages: judged when the queue has drained, by its arrival', () => {
    const { verdict, codes } = make();
    const record = ping('timed-out', null);
    expect(verdict.settle(record, 40)).toEqual({ method: 'ping', ok: false, latencyMs: null });
    expect(verdict.awaitsQueue).toBe(true);
    expect(codes()).toEqual([]);
    // Dispatched at the stop: it had arrived 2.5 ms after it was sent.
    record.status = 'completed';
    record.latencyMs = 2.5;
    verdict.flush();
    expect(verdict.awaitsQueue).toBe(false);
    expect(verdict.result).toEqual({ method: 'ping', ok: true, latencyMs: 2.5 });
    expect(codes()).toEqual([]);
  });

  it('a verdict put off is given as soon as the answer is dispatched, to whoever waits', async () => {
    const { verdict, codes } = make();
    const record = ping('timed-out', null);
    verdict.settle(record, 3);
    const waited = verdict.verdict(10_000);
    verdict.changed(ping('completed', 1)); // another request: nothing
    expect(verdict.awaitsQueue).toBe(true);
    record.status = 'completed';
    record.latencyMs = 4;
    record.responseBytes = 36;
    verdict.changed(record);
    expect(await waited).toEqual({ method: 'ping', ok: true, latencyMs: 4 });
    expect(codes()).toEqual([]);
  });

  it('a wait for the verdict is bounded, and the verdict still waits for the answer', async () => {
    const { verdict, codes } = make();
    const record = ping('timed-out', null);
    verdict.settle(record, 3);
    expect(await verdict.verdict(5)).toEqual({ method: 'ping', ok: false, latencyMs: null });
    expect(verdict.awaitsQueue).toBe(true); // not judged by the bound
    expect(codes()).toEqual([]);
    record.status = 'completed';
    record.latencyMs = 6;
    record.responseBytes = 36;
    verdict.changed(record);
    expect(verdict.result).toEqual({ method: 'ping', ok: true, latencyMs: 6 });
    expect(codes()).toEqual([]);
  });

  it('is put off only for a probe that timed out before the counters it is given', () => {
    const { verdict } = make();
    const record = { ...ping('timed-out', null), cancelledAt: 500 };
    verdict.settle(record, 3);
    expect(verdict.awaitsSince(499)).toBe(false); // counters older than the timeout: wait
    expect(verdict.awaitsSince(500)).toBe(true);
  });

  it('a second probe judges a first one still put off, as it stands', () => {
    const { verdict, codes } = make();
    verdict.settle(ping('timed-out', null), 3);
    verdict.settle(ping('completed', 2), 0);
    expect(codes()).toEqual(['slow-recovery']); // the first: never answered
    expect(verdict.result).toEqual({ method: 'ping', ok: true, latencyMs: 2 });
  });

  it('timed out behind queued messages and never answered: slow-recovery at the stop', () => {
    const { verdict, codes } = make();
    verdict.settle(ping('timed-out', null), 40);
    verdict.flush();
    expect(verdict.result?.ok).toBe(false);
    expect(codes()).toEqual(['slow-recovery']);
  });
});
