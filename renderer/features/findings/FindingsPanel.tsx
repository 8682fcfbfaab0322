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
const CLOCK_STEP_MS = 500;

export function FindingsPanel({ sessionId }: { sessionId: string }): ReactElement {
  const findings = useApp((s) => s.bySession[sessionId]?.findings ?? EMPTY);
  const groups = selectFindingGroups(findings);
  const errors = groups.filter((g) => g.level === 'error').length;
  const active = groups.filter((g) => g.state === 'active').length;
  // The clock moves every snapshot: selected in half seconds, the panel redraws at ~2 Hz,
  // enough for "active since 2.4 s (3.5 s)".
  const tick = useApp((s) => {
    const elapsed = s.bySession[sessionId]?.metrics?.elapsedMs;
    return elapsed === undefined ? null : Math.floor(elapsed / CLOCK_STEP_MS);
  });
  const nowMs = tick === null ? null : tick * CLOCK_STEP_MS;
  return (
    <Panel
      title="Findings"
      className="findings-panel"
      testId="findings-panel"
      actions={
        <span
          className="muted small-text"
          data-testid="findings-count"
          data-errors={errors}
          data-active={active}
        >
          {groups.length === 0
            ? 'none'
            : `${active > 0 ? `${active} active · ` : ''}${groups.length} code${groups.length === 1 ? '' : 's'}`}
        </span>
      }
    >
      {groups.length === 0 ? (
        <p className="empty">No findings yet: nothing on the pipe looks wrong.</p>
      ) : (
        <FindingList groups={groups} nowMs={nowMs} />
      )}
    </Panel>
  );
}
