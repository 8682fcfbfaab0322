/**
 * Recovery verdict: whether the small request sent after a cancellation (`ping` by default)
 * showed the server responsive again — DESIGN.md's real test of a cancellation.
 *
 * Owns: the result and a verdict put off. Fed by: the Session (`settle` once the probe's request
 * settles, `flush` when the session stops). Listens: the findings engine (`slow-recovery`).
 *
 * The probe tests the server, so it is judged by when its answer arrived. One that timed out
 * while messages still waited in the host's own queue may be among them, here in time: its
 * verdict waits until the queue has drained (the session's stop drains it); a slow host queue is
 * host-queue-stalled's to say.
 */
import type { RequestRecord } from '../../shared/requests.js';
import type { FindingsEngine } from './findings-engine.js';
import type { RecoveryResult } from './session-types.js';

export class RecoveryVerdict {
  result: RecoveryResult | null = null;
  private pending: RequestRecord | null = null;

  constructor(
    private readonly findings: FindingsEngine,
    private readonly budgetMs: number,
    private readonly now: () => number,
  ) {}

  /** The probe's request settled; `backlog`: messages still queued in the host. */
  settle(record: RequestRecord, backlog: number): RecoveryResult {
    this.result = { method: record.method, ok: false, latencyMs: null };
    if (record.status === 'timed-out' && backlog > 0) this.pending = record;
    else this.judge(record);
    return this.result;
  }

  /** A verdict put off behind the host queue: judged now (the queue has drained). */
  flush(): void {
    if (this.pending !== null) this.judge(this.pending);
  }

  get awaitsQueue(): boolean {
    return this.pending !== null;
  }

  private judge(record: RequestRecord): void {
    this.pending = null;
    const method = record.method;
    const ok = record.status === 'completed';
    const latency = record.latencyMs;
    this.result = {
      method,
      ok,
      latencyMs: latency === null ? null : Math.round(latency * 10) / 10,
    };
    if (ok && (latency ?? 0) <= this.budgetMs) return;
    this.findings.raise(
      'slow-recovery',
      ok
        ? `recovery ${method} took ${Math.round(latency ?? 0)} ms (budget ${this.budgetMs} ms)`
        : `recovery ${method} did not complete (${record.status})`,
      this.now(),
    );
  }
}
