/**
 * One process of the tree: its row (pid, command indented by depth, state, activity, CPU with
 * a sparkline, bytes written/s, threads) and, below it, its stdio fds and who holds each
 * other end. A process a finding names as its evidence is marked (data-evidence, a colored
 * left edge) and the finding's code is shown beside its activity.
 */
import { memo, type ReactElement } from 'react';
import type { ProcessPoint } from '../../../shared/session-info';
import { formatRate } from '../../components/format';
import { CpuSparkline } from './CpuSparkline';
import { compactCommand, type ProcessRow, shortCommand } from './process-view';

const INDENT_PX = 14;

function cpuText(cpu: number | null): string {
  if (cpu === null) return '—';
  if (cpu < 0.05) return '0 %';
  return `${cpu < 10 ? cpu.toFixed(1) : Math.round(cpu)} %`;
}

export const ProcessTreeRow = memo(function ProcessTreeRow({
  row,
  history,
  samples,
}: {
  row: ProcessRow;
  history: readonly ProcessPoint[] | undefined;
  samples: number;
}): ReactElement {
  const evidence = row.evidenceLevel !== null;
  const common = {
    'data-evidence': evidence,
    'data-level': row.evidenceLevel ?? undefined,
  };
  return (
    <>
      <tr
        className="process-row"
        data-testid="process-row"
        data-pid={row.pid}
        data-depth={row.depth}
        data-state={row.state}
        data-activity={row.kind}
        data-stuck={row.stuck}
        data-findings={row.findings.join(' ')}
        {...common}
      >
        <td className="num pid">{row.pid}</td>
        <td className="command" title={row.command}>
          <span className="tree-indent" style={{ width: row.depth * INDENT_PX }} />
          {row.depth > 0 ? <span className="tree-branch">└</span> : null}
          <span className="command-text">{shortCommand(compactCommand(row.command), 120)}</span>
        </td>
        <td className="state" title={`kernel state ${row.state}`}>
          <span className="state-letter">{row.state}</span> {row.stateWord}
        </td>
        <td className="activity" data-kind={row.kind} data-stuck={row.stuck}>
          <span className="activity-text" data-testid="process-activity">
            {row.activity}
          </span>
          {row.findings.map((code) => (
            <span key={code} className="evidence-chip" data-level={row.evidenceLevel ?? 'info'}>
              {code}
            </span>
          ))}
        </td>
        <td className="num cpu">
          <span className="cpu-cell">
            <CpuSparkline points={history ?? []} samples={samples} />
            <span className="cpu-value">{cpuText(row.cpuPercent)}</span>
          </span>
        </td>
        <td className="num">{formatRate(row.writeRate)}</td>
        <td className="num">{row.threads}</td>
      </tr>
      <tr className="stdio-row" data-pid={row.pid} {...common}>
        <td />
        <td colSpan={6}>
          <span className="tree-indent" style={{ width: row.depth * INDENT_PX }} />
          {row.stdio.length === 0 ? (
            <span className="muted">stdio not readable here</span>
          ) : (
            row.stdioGroups.map((g) => (
              <span key={g.ends[0].fd} className="stdio-group">
                {g.ends.map((s) => (
                  <span
                    key={s.fd}
                    className="stdio-end"
                    data-testid="process-stdio"
                    data-fd={s.fd}
                    title={
                      s.nonBlocking === null ? undefined : s.nonBlocking ? 'O_NONBLOCK' : 'blocking'
                    }
                  >
                    <b>
                      {s.fd} {s.name}
                    </b>{' '}
                    {s.target}
                  </span>
                ))}
                {g.peer ? <span className="stdio-peer">⇄ {g.peer}</span> : null}
              </span>
            ))
          )}
        </td>
      </tr>
    </>
  );
});
