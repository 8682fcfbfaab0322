/**
 * Findings grouped by code (renderer/store/selectors.ts `groupFindings`), each with its
 * episode (active since…, resolved at… after…, or an event seen n times), its message(s),
 * the figures it rests on with the moment each was taken, its evidence in one line and the
 * plain-words explanation of its code (shared/findings.ts). The session's findings panel shows
 * a live session's; the attach report shows the findings of one watch window
 * (`reportFindingGroups`: plain Finding[], no times).
 */
import './findings.css';
import type { ReactElement } from 'react';
import { FINDING_EXPLANATIONS, type Finding } from '../../../shared/findings';
import type { FindingEvidence } from '../../../shared/process';
import { formatClock, formatCount } from '../../components/format';
import { type FindingGroup, groupFindings } from '../../store/selectors';
import { evidenceLine } from '../process/process-view';
import { episodeLine, figurePhrases } from './finding-episode';

/** A report's findings (one per code, no times) as the groups FindingList shows. */
export function reportFindingGroups(findings: readonly Finding[]): FindingGroup[] {
  return groupFindings(findings.map((f) => ({ ...f, firstAt: 0, lastAt: 0, count: 1 })));
}

export function FindingList({
  groups,
  times = true,
  nowMs = null,
}: {
  groups: readonly FindingGroup[];
  /** Show how often and when first seen (a live session); a report has neither. */
  times?: boolean;
  /** The session's clock, for how long an active condition has held. */
  nowMs?: number | null;
}): ReactElement {
  return (
    <ul className="findings">
      {groups.map((g) => {
        const figures = times ? figurePhrases(g.figures) : [];
        return (
          <li
            key={g.code}
            className="finding"
            data-level={g.level}
            data-state={g.state}
            data-testid={`finding-${g.code}`}
          >
            <div className="finding-head">
              <span className="level" data-level={g.level}>
                {g.level}
              </span>
              <code>{g.code}</code>
              {times && g.state !== 'event' ? (
                <span
                  className="finding-state"
                  data-state={g.state}
                  data-testid="finding-state"
                  title={
                    g.state === 'active'
                      ? 'The condition holds now'
                      : 'The condition held, then ended (the finding stays, as history)'
                  }
                >
                  {g.state}
                </span>
              ) : null}
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
            {times ? (
              <p className="finding-episode" data-testid="finding-episode" data-state={g.state}>
                {episodeLine(g, nowMs)}
              </p>
            ) : null}
            {g.messages.map((m, i) => (
              // Messages can repeat; their order is stable within a group.
              // biome-ignore lint/suspicious/noArrayIndexKey: positional list of messages
              <p key={i} className="finding-message">
                {m}
              </p>
            ))}
            {figures.length > 0 ? (
              <p className="finding-figures" data-testid="finding-figures">
                {figures.join(' · ')}
              </p>
            ) : null}
            {g.evidence ? <EvidenceLine evidence={g.evidence} /> : null}
            <p className="finding-explanation">{FINDING_EXPLANATIONS[g.code] ?? ''}</p>
          </li>
        );
      })}
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
