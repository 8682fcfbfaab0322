/**
 * The report of one attach window (`attach:run`, the same as `pipescope attach <pid> --json`):
 * the one-line summary and what limited the evidence, the findings, the server's stdio with who
 * holds each other end (the host), and its process tree with what each process was doing at
 * the last sample. Pure: AttachPanel.tsx runs the window.
 */
import '../process/process.css';
import './attach.css';
import type { ReactElement } from 'react';
import type { AttachReport, AttachStdio, ProcRef } from '../../../shared/attach';
import { formatBytes, formatMs } from '../../components/format';
import { FindingList, reportFindingGroups } from '../findings/FindingList';
import { compactCommand, shortCommand, stateWord } from '../process/process-view';

const INDENT_PX = 14;

function Proc({ p, max = 90 }: { p: ProcRef; max?: number }): ReactElement {
  return (
    <span title={p.command}>
      <span className="num">{p.pid}</span>{' '}
      <span className="command-text">{shortCommand(compactCommand(p.command), max)}</span>
    </span>
  );
}

function unreadText(s: AttachStdio): string {
  if (!s.unread) return '—';
  return `${formatBytes(s.unread.start)} → ${formatBytes(s.unread.end)}`;
}

function cpuText(cpu: number | null): string {
  if (cpu === null) return '—';
  return `${cpu < 10 ? cpu.toFixed(1) : Math.round(cpu)} %`;
}

const FD_NAMES = ['stdin', 'stdout', 'stderr'] as const;

export function AttachReportView({ report }: { report: AttachReport }): ReactElement {
  const a = report.attach;
  const groups = reportFindingGroups(report.findings);
  const argv = [report.server.command, ...report.server.args].join(' ');
  const errors = report.findings.filter((f) => f.level === 'error').length;
  return (
    <div
      className="attach-report"
      data-testid="attach-report"
      data-pid={report.server.pid ?? undefined}
      data-errors={errors}
    >
      <header className="attach-report-head">
        <strong className="mono">pid {report.server.pid}</strong>
        <span className="command-text" title={argv}>
          {shortCommand(compactCommand(argv), 140)}
        </span>
        <span className="muted small-text attach-window">
          watched {formatMs(a.observedMs)} of {formatMs(a.watchMs)}, {report.process.samples} sample
          {report.process.samples === 1 ? '' : 's'}
        </span>
      </header>
      <p className="attach-summary" data-testid="attach-summary">
        {a.summary}
      </p>
      {a.note ? (
        <p className="attach-note small-text" data-testid="attach-note">
          {a.note}
        </p>
      ) : null}
      {!report.process.available ? (
        <p className="attach-note small-text">
          Process evidence is not available here: {report.process.reason ?? 'unknown'}
        </p>
      ) : null}

      <h3 className="attach-h">Findings</h3>
      {groups.length === 0 ? (
        <p className="muted small-text" data-testid="attach-no-findings">
          None over the window: nothing in the process looks stuck.
        </p>
      ) : (
        <FindingList groups={groups} times={false} />
      )}

      <h3 className="attach-h">Stdio and who holds the other end</h3>
      <p className="small-text attach-host" data-testid="attach-host">
        <span className="muted">Host: </span>
        {a.host ? (
          <>
            <Proc p={a.host} /> <span className="muted">({a.host.how})</span>
          </>
        ) : (
          <span className="muted">
            not found (no process this user can see holds the other end of its stdout or stdin)
          </span>
        )}
        {a.parent ? (
          <>
            <span className="muted"> · parent </span>
            <Proc p={a.parent} max={60} />
          </>
        ) : null}
      </p>
      <div className="attach-scroll">
        <table className="process-table attach-table" data-testid="attach-stdio">
          <colgroup>
            <col className="c-fd" />
            <col className="c-kind" />
            <col className="c-target" />
            <col />
            <col className="c-unread" />
          </colgroup>
          <thead>
            <tr>
              <th>fd</th>
              <th>kind</th>
              <th>end</th>
              <th>other end</th>
              <th title="bytes unread at the reader's end, at the start and the end of the window">
                unread
              </th>
            </tr>
          </thead>
          <tbody>
            {a.stdio.map((s) => (
              <tr key={s.fd} data-fd={s.fd} data-kind={s.kind}>
                <td className="mono">
                  {s.fd} <span className="muted">{FD_NAMES[s.fd]}</span>
                </td>
                <td>{s.kind}</td>
                <td className="mono" title={s.target ?? undefined}>
                  {s.target ?? '—'}
                </td>
                <td
                  className="attach-cell"
                  title={s.peer ? `${s.peer.command}\n${s.peer.how}` : undefined}
                >
                  {s.peer ? (
                    <>
                      <Proc p={s.peer} max={60} />{' '}
                      <span className="muted small-text">{s.peer.how}</span>
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="num">{unreadText(s)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3 className="attach-h">Process tree at the last sample</h3>
      {a.tree.length === 0 ? (
        <p className="muted small-text">No sample of its tree.</p>
      ) : (
        <div className="attach-scroll">
          <table className="process-table attach-table" data-testid="attach-tree">
            <colgroup>
              <col className="c-pid" />
              <col />
              <col className="c-state" />
              <col />
              <col className="c-cpu-short" />
            </colgroup>
            <thead>
              <tr>
                <th className="num">pid</th>
                <th>process</th>
                <th>state</th>
                <th>doing</th>
                <th className="num">CPU</th>
              </tr>
            </thead>
            <tbody>
              {a.tree.map((p) => (
                <tr key={p.pid} data-pid={p.pid} data-depth={p.depth} data-state={p.state}>
                  <td className="num pid">{p.pid}</td>
                  <td className="command" title={p.command}>
                    <span className="tree-indent" style={{ width: p.depth * INDENT_PX }} />
                    {p.depth > 0 ? <span className="tree-branch">└</span> : null}
                    <span className="command-text">
                      {shortCommand(compactCommand(p.command), 100)}
                    </span>
                  </td>
                  <td className="state" title={`kernel state ${p.state}`}>
                    <span className="state-letter">{p.state}</span> {stateWord(p.state)}
                  </td>
                  <td
                    className="activity"
                    title={
                      [
                        p.wchan ? `wchan ${p.wchan}` : '',
                        p.syscall?.name ? `in ${p.syscall.name}` : '',
                      ]
                        .filter(Boolean)
                        .join(', ') || undefined
                    }
                  >
                    <span className="activity-text" data-testid="attach-doing">
                      {p.doing}
                    </span>
                    {p.wchan ? <span className="muted mono attach-wchan"> {p.wchan}</span> : null}
                  </td>
                  <td className="num">{cpuText(p.cpuPercent)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small-text attach-written" title={a.written.source}>
        Written over the window:{' '}
        {a.written.bytes === null ? 'unknown' : formatBytes(a.written.bytes)}
        {a.syscallReadable ? '' : ' · current system call not readable'}
      </p>
    </div>
  );
}
