/**
 * Live diagnosis: the session's findings grouped by code, errors first, each with the
 * plain-words explanation of its code (shared/findings.ts).
 */
import './findings.css';
import type { ReactElement } from 'react';
import { FINDING_EXPLANATIONS } from '../../../shared/findings';
import { formatClock, formatCount } from '../../components/format';
import { Panel } from '../../components/Panel';
import { useApp } from '../../store';
import { selectFindingGroups } from '../../store/selectors';

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
              <p className="finding-explanation">{FINDING_EXPLANATIONS[g.code] ?? ''}</p>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
