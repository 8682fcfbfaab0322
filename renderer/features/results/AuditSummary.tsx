/**
 * The result audit above a request's exchange: its lines (audit-lines.ts) as a compact grid,
 * then which host profiles the answer breaks (hostsBroken), each with how sure the number is.
 * Draws only what the engine measured (RequestRecord.audit).
 */
import type { ReactElement } from 'react';
import type { ResultAudit } from '../../../shared/result-audit';
import { auditLines, hostsVerdict, STATUS_LABEL } from './audit-lines';

export function AuditSummary({ audit }: { audit: ResultAudit }): ReactElement {
  const lines = auditLines(audit);
  const verdict = hostsVerdict(audit);
  return (
    <div className="audit" data-testid="audit" data-bytes={audit.bytes}>
      <dl className="audit-grid">
        {lines.map((l) => (
          <div key={l.key} className="audit-line" data-tone={l.tone} data-testid={`audit-${l.key}`}>
            <dt>{l.label}</dt>
            <dd>{l.value}</dd>
          </div>
        ))}
      </dl>
      <div
        className="audit-hosts"
        data-testid="audit-hosts"
        data-broken={verdict.broken.map((b) => b.host).join(' ')}
      >
        {verdict.broken.length === 0 ? (
          <p className="audit-hosts-ok">
            <span className="chip" data-level="ok">
              no known host limit passed
            </span>
            {verdict.unknown.length > 0 ? (
              <span className="muted small-text">
                no limit known for {verdict.unknown.join(', ')}
              </span>
            ) : null}
          </p>
        ) : (
          <>
            <p className="audit-hosts-head">
              Breaks {verdict.broken.length} of the host profiles
              {audit.incomplete.length > 0
                ? ' (it says it is incomplete)'
                : ' (and nothing in it says part was left out)'}
              :
            </p>
            <ul>
              {verdict.broken.map((b) => (
                <li key={b.host} data-host={b.host}>
                  <span className="chip" data-level="warn">
                    {b.name}
                  </span>{' '}
                  <span className="muted small-text">({STATUS_LABEL[b.status]})</span> {b.why}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </div>
  );
}
