import { describe, expect, it } from 'vitest';
import { type RequestRecord, type RequestStatus, sentRecord } from '../../shared/requests.js';
import { FindingsEngine } from './findings-engine.js';
import { RecoveryVerdict } from './recovery-verdict.js';

const budgets = {
  writeBlockedMs: 1000,
  dispatcherWaitMs: 1000,
  dispatcherDepth: 100,
  stdinWaitMs: 1000,
  recoveryMs: 100,
};

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

  it('timed out behind queued messages and never answered: slow-recovery at the stop', () => {
    const { verdict, codes } = make();
    verdict.settle(ping('timed-out', null), 40);
    verdict.flush();
    expect(verdict.result?.ok).toBe(false);
    expect(codes()).toEqual(['slow-recovery']);
  });
});
