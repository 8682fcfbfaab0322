import type { ReactElement } from 'react';
import { useApp } from '../../store';
import { StderrPanel } from '../stderr/index';

/** Wires the stderr panel (features/stderr) to the session's capped stderr tail. */
export function StderrSection({ sessionId }: { sessionId: string }): ReactElement {
  const text = useApp((s) => s.bySession[sessionId]?.stderr ?? '');
  const skipped = useApp((s) => s.bySession[sessionId]?.stderrSkipped ?? 0);
  return (
    <section className="log-section stderr-section" data-testid="stderr-section">
      <header className="panel-head">
        <h2>stderr</h2>
        <span className="panel-actions muted small-text">logs, not errors</span>
      </header>
      <div className="log-body">
        <StderrPanel text={text} skippedBytes={skipped} />
      </div>
    </section>
  );
}
