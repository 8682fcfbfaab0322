/**
 * Live diagnosis: the session's findings grouped by code, errors first, each with the
 * plain-words explanation of its code (shared/findings.ts) and, when it has some, its
 * evidence in one line (the process, its syscall, for how long).
 */
import './findings.css';
import type { ReactElement } from 'react';
import { FINDING_EXPLANATIONS } from '../../../shared/findings';
import type { FindingEvidence } from '../../../shared/process';
import { formatClock, formatCount } from '../../components/format';
import { Panel } from '../../components/Panel';
import { useApp } from '../../store';
import { selectFindingGroups } from '../../store/selectors';
import { evidenceLine } from '../process/process-view';

const EMPTY: never[] = [];

export function FindingsPanel({ sessionId }: { sessionId: string }): ReactElement {
  const findings = useApp((s) => s.bySession[sessionId]?.findings ?? EMPTY);
  const groups = selectFindingGroups(findings);
  const errors = groups.filter((g) => g.level === 'error').length;
  return (
    <Panel
      title="Findings"
      className="findings-panel"
      testId="findings-panel"
      actions={
        <span className="muted small-text" data-testid="findings-count" data-errors={errors}>
          {groups.length === 0 ? 'none' : `${groups.length} code${groups.length === 1 ? '' : 's'}`}
        </span>
      }
    >
      {groups.length === 0 ? (
        <p className="empty">No findings yet: nothing on the pipe looks wrong.</p>
      ) : (
        <ul className="findings">
          {groups.map((g) => (
            <li
              key={g.code}
              className="finding"
              data-level={g.level}
              data-testid={`finding-${g.code}`}
            >
              <div className="finding-head">
                <span className="level" data-level={g.level}>
                  {g.level}
                </span>
                <code>{g.code}</code>
                <span className="finding-count" title="times seen">
                  ×{formatCount(g.count)}
                </span>
                <span className="finding-time" title="first seen (session time)">
                  {formatClock(g.firstAt)}
                </span>
              </div>
              {g.messages.map((m, i) => (
                // Messages can repeat; their order is stable within a group.
                // biome-ignore lint/suspicious/noArrayIndexKey: positional list of messages
                <p key={i} className="finding-message">
                  {m}
                </p>
              ))}
              {g.evidence ? <EvidenceLine evidence={g.evidence} /> : null}
              <p className="finding-explanation">{FINDING_EXPLANATIONS[g.code] ?? ''}</p>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

function EvidenceLine({ evidence }: { evidence: FindingEvidence }): ReactElement | null {
  const line = evidenceLine(evidence);
  if (line === null) return null;
  return (
    <p
      className="finding-evidence"
      data-testid="finding-evidence"
      data-pid={evidence.pid ?? undefined}
      title={typeof evidence.command === 'string' ? evidence.command : undefined}
    >
      {line}
    </p>
  );
}
