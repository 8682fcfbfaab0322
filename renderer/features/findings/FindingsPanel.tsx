/**
 * Live diagnosis: the session's findings grouped by code, errors first, each with the
 * plain-words explanation of its code (shared/findings.ts) and, when it has some, its
 * evidence in one line (the process, its syscall, for how long): FindingList.tsx.
 */
import './findings.css';
import type { ReactElement } from 'react';
import { Panel } from '../../components/Panel';
import { useApp } from '../../store';
import { selectFindingGroups } from '../../store/selectors';
import { FindingList } from './FindingList';

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
        <FindingList groups={groups} />
      )}
    </Panel>
  );
}
