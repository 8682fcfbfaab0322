/** The processes `attach:list` found: pid, command, parent (the host), why each is listed. */
import '../process/process.css';
import './attach.css';
import type { ReactElement } from 'react';
import type { Candidate } from '../../../shared/attach';
import { compactCommand, shortCommand } from '../process/process-view';

/** Rows shown; the rest are counted (a machine with hundreds is unusual, not impossible). */
const MAX_ROWS = 50;

export function CandidateTable({
  candidates,
  watching,
  onAttach,
}: {
  candidates: readonly Candidate[];
  /** The pid being watched now (every Attach waits for it), or null. */
  watching: number | null;
  onAttach: (pid: number) => void;
}): ReactElement {
  if (candidates.length === 0) {
    return (
      <p className="empty small-text" data-testid="attach-none">
        No running process looks like an MCP server a known host started, or one a discovered config
        runs. (The list reads /proc: Linux only.)
      </p>
    );
  }
  const shown = candidates.slice(0, MAX_ROWS);
  return (
    <div className="attach-scroll">
      <table className="process-table attach-table" data-testid="attach-candidates">
        <colgroup>
          <col className="c-pid" />
          <col />
          <col className="c-parent" />
          <col className="c-attach" />
        </colgroup>
        <thead>
          <tr>
            <th className="num">pid</th>
            <th>command and why it is listed</th>
            <th>parent (host)</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {shown.map((c) => (
            <tr key={c.pid} data-testid="attach-candidate" data-pid={c.pid}>
              <td className="num pid">{c.pid}</td>
              <td className="attach-cell" title={c.command}>
                <span className="command-text">{shortCommand(compactCommand(c.command), 120)}</span>
                <ul className="attach-why">
                  {c.why.map((w) => (
                    <li key={w} className="muted small-text">
                      {w}
                    </li>
                  ))}
                </ul>
              </td>
              <td className="attach-cell" title={c.parentCommand}>
                <span className="num">{c.ppid}</span>{' '}
                <span className="command-text">
                  {shortCommand(compactCommand(c.parentCommand), 50)}
                </span>
              </td>
              <td>
                <button
                  type="button"
                  className="small primary"
                  data-testid="attach-run"
                  disabled={watching !== null}
                  onClick={() => onAttach(c.pid)}
                >
                  {watching === c.pid ? 'Watching…' : 'Attach'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {candidates.length > shown.length ? (
        <p className="muted small-text">
          and {candidates.length - shown.length} more (attach by pid below)
        </p>
      ) : null}
    </div>
  );
}
