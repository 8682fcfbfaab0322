/**
 * The live process panel (DESIGN.md "Process evidence"): what the server's process tree is
 * doing, so a silent pipe can be told apart (blocked in write(), idle with its answer
 * buffered, on CPU, waiting on a child that is itself blocked). Reads the session's newest
 * process sample and sparkline history from the store; a trace session shows the sample at
 * its seek position. Says plainly when sampling is not possible here, and why.
 */
import './process.css';
import { type ReactElement, useMemo } from 'react';
import { isEnded, PROCESS_HISTORY_SAMPLES } from '../../../shared/session-info';
import { formatClock, formatCount } from '../../components/format';
import { Panel } from '../../components/Panel';
import { useApp } from '../../store';
import { NO_PROCESS_HISTORY } from '../../store/process-history';
import { ProcessTreeRow } from './ProcessTreeRow';
import { memoProcessRows, unavailableText } from './process-view';

const EMPTY: never[] = [];

export function ProcessPanel({ sessionId }: { sessionId: string }): ReactElement | null {
  const known = useApp((s) => s.bySession[sessionId] !== undefined);
  const available = useApp((s) => s.bySession[sessionId]?.info.process?.available ?? false);
  const reason = useApp((s) => s.bySession[sessionId]?.info.process?.reason);
  const isTrace = useApp((s) => s.bySession[sessionId]?.info.trace != null);
  // A live session whose server is over: its last sample is history, not what it does now.
  const ended = useApp((s) => {
    const info = s.bySession[sessionId]?.info;
    return info !== undefined && info.trace == null && isEnded(info.state);
  });
  const sample = useApp((s) => s.bySession[sessionId]?.process ?? null);
  const history = useApp((s) => s.bySession[sessionId]?.processHistory ?? NO_PROCESS_HISTORY);
  const findings = useApp((s) => s.bySession[sessionId]?.findings ?? EMPTY);
  const rowsOf = useMemo(memoProcessRows, []);
  const rows = rowsOf(sample, findings);
  if (!known) return null;
  const notHere = sample ? null : unavailableText({ available, reason }, isTrace);
  const state = notHere ? 'unavailable' : sample ? (ended ? 'ended' : 'sampled') : 'waiting';
  const evidence = rows.filter((r) => r.evidenceLevel !== null).length;
  return (
    <Panel
      title="Process"
      className="process-panel"
      testId="process-panel"
      actions={
        <span
          className="muted small-text"
          data-testid="process-summary"
          data-state={state}
          data-evidence={evidence}
        >
          {sample
            ? `${formatCount(rows.length)} process${rows.length === 1 ? '' : 'es'}` +
              `${sample.omitted > 0 ? ` (+${formatCount(sample.omitted)} not sampled)` : ''}` +
              (ended
                ? ` · last sample at ${formatClock(sample.t)}, before the server ended`
                : ` · sample at ${formatClock(sample.t)}`)
            : state === 'unavailable'
              ? 'not sampled'
              : 'no sample yet'}
        </span>
      }
    >
      <div className="process-body" data-testid="process-state" data-state={state}>
        {notHere ? (
          <p className="empty process-unavailable" data-testid="process-unavailable">
            {notHere}
          </p>
        ) : !sample ? (
          <p className="empty">
            {isTrace
              ? 'No process sample recorded before this moment.'
              : 'Waiting for the first sample of the server’s process tree…'}
          </p>
        ) : (
          <div className="process-scroll">
            <table className="process-table">
              <colgroup>
                <col className="c-pid" />
                <col className="c-command" />
                <col className="c-state" />
                <col className="c-activity" />
                <col className="c-cpu" />
                <col className="c-write" />
                <col className="c-threads" />
              </colgroup>
              <thead>
                <tr>
                  <th className="num">pid</th>
                  <th>process</th>
                  <th>state</th>
                  <th>doing</th>
                  <th className="num">CPU</th>
                  <th className="num">written</th>
                  <th className="num" title="threads">
                    thr
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <ProcessTreeRow
                    key={row.pid}
                    row={row}
                    history={history.get(row.pid)}
                    samples={PROCESS_HISTORY_SAMPLES}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </Panel>
  );
}
