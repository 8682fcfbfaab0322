/**
 * A start that failed, as a state of its own (issue 22) instead of an empty dashboard of
 * zeros: what went wrong in words (command not found, permission denied, a missing folder, or
 * a server that exited before answering initialize, with its code and its last stderr lines),
 * what ran, and Edit & retry (the start form filled with this config), Retry and Close. The
 * dashboard stays one click away (a server that printed something before it quit).
 */
import { type ReactElement, useState } from 'react';
import { useApp } from '../../store';
import { formatArgv } from '../start/argv';
import { RetryDialog } from '../start/RetryDialog';
import { startFailureWords, stderrTail } from './outcome';
import type { SessionActions } from './useSessionActions';

export function FailedStart({
  sessionId,
  actions,
  onShowDashboard,
}: {
  sessionId: string;
  actions: SessionActions;
  onShowDashboard(): void;
}): ReactElement | null {
  const [editing, setEditing] = useState(false);
  const [retrying, setRetrying] = useState(false);
  const info = useApp((s) => s.bySession[sessionId]?.info);
  const stderr = useApp((s) => s.bySession[sessionId]?.stderr ?? '');
  if (!info) return null;
  const words = startFailureWords(info);
  const tail = stderrTail(stderr);
  const spawned = info.startError === null;
  return (
    <section className="failed-start" data-testid="failed-start" data-code={words.code}>
      <header className="failed-start-head">
        <h1>{info.title}</h1>
        <span
          className="state-badge"
          data-state={info.state}
          data-outcome="failed-start"
          data-testid="session-state"
        >
          failed to start
        </span>
        <code className="failed-code" data-testid="failed-code">
          {words.code}
        </code>
      </header>
      <p className="failed-headline" data-testid="failed-headline">
        {words.headline}
      </p>
      <p className="muted">{words.hint}</p>
      <dl className="failed-facts">
        <dt>ran</dt>
        <dd>
          <code data-testid="failed-argv">{formatArgv([info.command, ...info.args])}</code>
        </dd>
        {info.cwd ? (
          <>
            <dt>in</dt>
            <dd>
              <code>{info.cwd}</code>
            </dd>
          </>
        ) : null}
        {info.envNames.length > 0 ? (
          <>
            <dt>env</dt>
            <dd>
              <code>{info.envNames.map((n) => `${n}=•••`).join(' ')}</code>
            </dd>
          </>
        ) : null}
        {spawned && info.pid ? (
          <>
            <dt>pid</dt>
            <dd>{info.pid}</dd>
          </>
        ) : null}
      </dl>
      {spawned ? (
        tail ? (
          <figure className="failed-stderr">
            <figcaption className="muted small-text">its last stderr lines</figcaption>
            <pre data-testid="failed-stderr">{tail}</pre>
          </figure>
        ) : (
          <p className="muted" data-testid="failed-stderr-empty">
            It wrote nothing to stderr.
          </p>
        )
      ) : null}
      <div className="failed-actions">
        <button
          type="button"
          className="primary"
          data-testid="edit-retry"
          onClick={() => setEditing(true)}
        >
          Edit & retry…
        </button>
        <button
          type="button"
          data-testid="retry"
          disabled={retrying}
          onClick={() => {
            setRetrying(true);
            void actions.restart().finally(() => setRetrying(false));
          }}
        >
          Retry
        </button>
        <button type="button" data-testid="close-failed" onClick={() => void actions.close()}>
          Close
        </button>
        {spawned ? (
          <button
            type="button"
            className="link-button"
            data-testid="show-dashboard"
            onClick={onShowDashboard}
          >
            Show the dashboard
          </button>
        ) : null}
      </div>
      {editing ? (
        <RetryDialog sessionId={sessionId} verb="retry" onClose={() => setEditing(false)} />
      ) : null}
    </section>
  );
}
