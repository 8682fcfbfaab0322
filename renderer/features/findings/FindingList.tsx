/**
 * Findings grouped by code (renderer/store/selectors.ts `groupFindings`), each with its
 * message(s), its evidence in one line and the plain-words explanation of its code
 * (shared/findings.ts). The session's findings panel shows a live session's; the attach report
 * shows the findings of one watch window (`reportFindingGroups`: plain Finding[], no times).
 */
import './findings.css';
import type { ReactElement } from 'react';
import { FINDING_EXPLANATIONS, type Finding } from '../../../shared/findings';
import type { FindingEvidence } from '../../../shared/process';
import { formatClock, formatCount } from '../../components/format';
import { type FindingGroup, groupFindings } from '../../store/selectors';
import { evidenceLine } from '../process/process-view';

/** A report's findings (one per code, no times) as the groups FindingList shows. */
export function reportFindingGroups(findings: readonly Finding[]): FindingGroup[] {
  return groupFindings(findings.map((f) => ({ ...f, firstAt: 0, lastAt: 0, count: 1 })));
}

export function FindingList({
  groups,
  times = true,
}: {
  groups: readonly FindingGroup[];
  /** Show how often and when first seen (a live session); a report has neither. */
  times?: boolean;
}): ReactElement {
  return (
    <ul className="findings">
      {groups.map((g) => (
        <li key={g.code} className="finding" data-level={g.level} data-testid={`finding-${g.code}`}>
          <div className="finding-head">
            <span className="level" data-level={g.level}>
              {g.level}
            </span>
            <code>{g.code}</code>
            {times ? (
              <>
                <span className="finding-count" title="times seen">
                  ×{formatCount(g.count)}
                </span>
                <span className="finding-time" title="first seen (session time)">
                  {formatClock(g.firstAt)}
                </span>
              </>
            ) : null}
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
