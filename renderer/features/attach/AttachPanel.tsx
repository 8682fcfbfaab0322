/**
 * "Attach to a running server" (start screen): the processes that look like MCP servers some
 * host started (`attach:list`), and Attach per row (or by pid) to watch one for two seconds
 * (`attach:run`) and show what it is doing (AttachReportView.tsx). Read-only: nothing is
 * started, stopped or written to.
 */
import './attach.css';
import { type ReactElement, useEffect, useState } from 'react';
import type { AttachReport, Candidate } from '../../../shared/attach';
import { useHost } from '../../app/host-context';
import { ErrorText } from '../../components/ErrorText';
import { Panel } from '../../components/Panel';
import { useAsyncAction } from '../../components/useAsyncAction';
import { AttachReportView } from './AttachReportView';
import { CandidateTable } from './CandidateTable';

/** How long Attach watches (the CLI's default window). */
export const ATTACH_WATCH_MS = 2000;

export function AttachPanel(): ReactElement {
  const host = useHost();
  const [candidates, setCandidates] = useState<Candidate[] | null>(null);
  const [report, setReport] = useState<AttachReport | null>(null);
  const [watching, setWatching] = useState<number | null>(null);
  const [pidText, setPidText] = useState('');
  const listing = useAsyncAction(() => host.invoke('attach:list', {}));
  const run = useAsyncAction((pid: number) =>
    host.invoke('attach:run', { pid, watchMs: ATTACH_WATCH_MS }),
  );

  const refresh = async (): Promise<void> => {
    const r = await listing.run();
    if (r?.ok) setCandidates(r.value);
  };
  const attachTo = async (pid: number): Promise<void> => {
    setWatching(pid);
    setReport(null);
    try {
      const r = await run.run(pid);
      if (r?.ok) setReport(r.value);
    } finally {
      setWatching(null);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: list once when the screen opens
  useEffect(() => {
    void refresh();
  }, []);

  const typedPid = /^\d+$/.test(pidText.trim()) ? Number(pidText.trim()) : null;
  return (
    <Panel
      title="Attach to a running server"
      testId="attach-panel"
      actions={
        <>
          <span className="muted small-text" data-testid="attach-count">
            {listing.pending
              ? 'Looking…'
              : candidates
                ? `${candidates.length} candidate${candidates.length === 1 ? '' : 's'}`
                : ''}
          </span>
          <button
            type="button"
            className="small"
            data-testid="attach-refresh"
            disabled={listing.pending}
            onClick={() => void refresh()}
          >
            Refresh
          </button>
        </>
      }
    >
      <div className="attach-body">
        <p className="muted small-text">
          A server another host started (Claude Desktop, Claude Code, Cursor, VS Code), watched for{' '}
          {ATTACH_WATCH_MS / 1000} s from outside: its process tree, its stdio and who holds the
          other end. Read-only: nothing is started, stopped or written to it.
        </p>
        <ErrorText message={listing.error} />
        {candidates ? (
          <CandidateTable
            candidates={candidates}
            watching={watching}
            onAttach={(pid) => void attachTo(pid)}
          />
        ) : null}
        <form
          className="form-row attach-by-pid"
          onSubmit={(e) => {
            e.preventDefault();
            if (typedPid !== null && watching === null) void attachTo(typedPid);
          }}
        >
          <label className="control">
            <span className="muted small-text">Another process by pid</span>
            <input
              className="num-input"
              inputMode="numeric"
              size={8}
              value={pidText}
              placeholder="pid"
              data-testid="attach-pid"
              onChange={(e) => setPidText(e.target.value)}
            />
          </label>
          <button
            type="submit"
            className="small"
            data-testid="attach-pid-run"
            disabled={typedPid === null || typedPid < 1 || watching !== null}
          >
            Attach
          </button>
        </form>
        {watching !== null ? (
          <p className="small-text" data-testid="attach-watching">
            Watching pid {watching} for {ATTACH_WATCH_MS / 1000} s…
          </p>
        ) : null}
        <ErrorText message={run.error} />
        {report ? <AttachReportView report={report} /> : null}
      </div>
    </Panel>
  );
}
