/**
 * Recovery verdict: whether the small request sent after a cancellation (`ping` by default)
 * showed the server responsive again — DESIGN.md's real test of a cancellation.
 *
 * Owns: the result and a verdict put off. Fed by: the Session (`settle` once the probe's request
 * settles, `changed` for every request change, `flush` when the host queue has drained or the
 * session stops). Listens: the findings engine (`slow-recovery`).
 *
 * The probe tests the server, so it is judged by when its answer arrived. One that timed out
 * while messages still waited in the host's own queue may be among them, here in time: its
 * verdict waits until its answer is dispatched or the queue has drained (the session's stop
 * drains it); a slow host queue is host-queue-stalled's to say.
 */
import type { RequestRecord } from '../../../shared/requests.js';
import type { FindingsEngine } from './findings-engine.js';
import type { RecoveryResult } from './types.js';

export class RecoveryVerdict {
  result: RecoveryResult | null = null;
  private pending: RequestRecord | null = null;
  private waiters: ((r: RecoveryResult | null) => void)[] = [];

  constructor(
    private readonly findings: FindingsEngine,
    private readonly budgetMs: number,
    private readonly now: () => number,
  ) {}

  /** The probe's request settled; `backlog`: messages still queued in the host. */
  settle(record: RequestRecord, backlog: number): RecoveryResult {
    this.flush(); // an earlier probe still put off: judged as it stands
    const provisional = { method: record.method, ok: false, latencyMs: null };
    this.result = provisional;
    if (record.status === 'timed-out' && backlog > 0) this.pending = record;
    else this.judge(record);
    return this.result ?? provisional;
  }

  /** A request changed: the answer to a probe put off may have been dispatched. */
  changed(record: RequestRecord): void {
    if (record === this.pending && record.responseBytes !== null) this.judge(record);
  }

  /** A verdict put off: judged now, as it stands. */
  /**
   * Sends the probe (`send`) and judges it. `awaitQueue` (the app): a verdict put off behind the
   * host queue is waited for, at most as long again; the probe, bound to its deadline, takes the
   * provisional one (the report has the final).
   */
  async probe(
    send: () => Promise<{ record: RequestRecord }>,
    backlog: () => number,
    timeoutMs: number,
    awaitQueue: boolean,
  ): Promise<RecoveryResult> {
    const { record } = await send();
    const now = this.settle(record, backlog());
    if (!awaitQueue || !this.awaitsQueue) return now;
    return (await this.verdict(timeoutMs)) ?? now;
  }

  /** A tick: a verdict put off behind the host queue is judged once the queue is empty — as
   *  counters taken (at `countedAt`) after the probe timed out show it (whatever was read
   *  before them has reached main, in order on one port). */
  tick(countedAt: number, backlog: number): void {
    if (this.awaitsSince(countedAt) && backlog === 0) this.flush();
  }

  flush(): void {
    if (this.pending !== null) this.judge(this.pending);
  }

  get awaitsQueue(): boolean {
    return this.pending !== null;
  }

  /** A verdict is put off for a probe that timed out at or before `t`. */
  awaitsSince(t: number): boolean {
    const at = this.pending?.cancelledAt ?? null;
    return at !== null && at <= t;
  }

  /** The verdict once there is one (at once when none is put off), or after `boundMs` the
   *  provisional one — the verdict itself still waits for the answer or the queue. */
  verdict(boundMs: number): Promise<RecoveryResult | null> {
    if (this.pending === null) return Promise.resolve(this.result);
    return new Promise((resolve) => {
      const waiter = (r: RecoveryResult | null): void => {
        clearTimeout(bound);
        resolve(r);
      };
      const bound = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(this.result);
      }, boundMs);
      this.waiters.push(waiter);
    });
  }

  private judge(record: RequestRecord): void {
    this.pending = null;
    const method = record.method;
    const ok = record.status === 'completed';
    const latency = record.latencyMs;
    const result = {
      method,
      ok,
      latencyMs: latency === null ? null : Math.round(latency * 10) / 10,
    };
    this.result = result;
    for (const w of this.waiters.splice(0)) w(result);
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
