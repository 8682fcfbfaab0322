/**
 * Late answers: responses that arrived after their request's cancellation (DESIGN.md `late`).
 *
 * Owns: their count (the report's `lateResponses`). Fed by: the request table (a late answer)
 * and the end signatures (an answer held back that turned out late, or one counted late that
 * turned out flushed at exit). Raises into: the FindingsEngine (`cancel-ignored`, unless the
 * answer sat in a pipe the host was not reading: no fault of the server's).
 */
import type { RequestRecord } from '../../../shared/requests.js';
import type { EndSignatureHooks } from './end-signatures.js';
import type { FindingsEngine } from './findings-engine.js';
import type { RequestTable } from './request-table.js';

export class LateAnswers implements EndSignatureHooks {
  count = 0;

  constructor(
    private readonly findings: FindingsEngine,
    private readonly requests: () => RequestTable,
    /** Whether the cancellation went while the host was not reading the answer's pipe. */
    private readonly cancelledUnread: (id: RequestRecord['id']) => boolean,
    private readonly now: () => number,
  ) {}

  /** The request table called an answer late. */
  arrived(r: RequestRecord): void {
    this.count += 1;
    if (this.cancelledUnread(r.id)) return;
    // From when the answer arrived (one held back until the end is judged later than that).
    const arrived = r.latencyMs === null ? this.now() : r.sentAt + r.latencyMs;
    const after = Math.round(arrived - (r.cancelledAt ?? r.sentAt));
    this.findings.raise(
      'cancel-ignored',
      `request ${String(r.id)} (${r.method}) was answered ${after} ms after its cancellation`,
      this.now(),
      r.id,
    );
  }

  late(r: RequestRecord): void {
    this.requests().markLate(r);
  }

  unlate(r: RequestRecord): void {
    this.count -= 1;
    this.findings.retract('cancel-ignored', r.id);
    this.requests().unmarkLate(r);
  }
}
