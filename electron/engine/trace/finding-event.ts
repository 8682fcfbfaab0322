/**
 * Finding events of a trace: a live finding as one `finding` line (redacted), with its episode
 * (since, resolved) and its figures. Pure.
 */
import type { LiveFinding } from '../../../shared/findings.js';
import type { TraceFindingEvent } from '../../../shared/trace-format.js';
import { redactEvidence } from './process-event.js';
import type { Redactor } from './redact.js';

/** `now`: the session clock, for a condition that ended without saying when. */
export function findingEvent(f: LiveFinding, now: number, redactor: Redactor): TraceFindingEvent {
  return {
    // A condition that ended is recorded when it ended (its lastAt is its last episode's).
    t: f.active === false ? Math.max(f.lastAt, f.resolvedAt ?? now) : f.lastAt,
    type: 'finding',
    code: f.code,
    level: f.level,
    message: redactor.text(f.message),
    count: f.count,
    firstAt: f.firstAt,
    lastAt: f.lastAt,
    ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
    ...(f.evidence === undefined ? {} : { evidence: redactEvidence(f.evidence, redactor) }),
    ...(f.active === undefined ? {} : { active: f.active }),
    ...(f.since === undefined ? {} : { since: f.since }),
    ...(f.resolvedAt === undefined ? {} : { resolvedAt: f.resolvedAt }),
    ...(f.resolvedBy === undefined ? {} : { resolvedBy: f.resolvedBy }),
    ...(f.figures === undefined ? {} : { figures: f.figures }),
  };
}
