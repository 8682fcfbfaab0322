/**
 * Edit & retry (a start that failed) and Edit & restart (a server that is over): the start
 * form of the session's kind, filled from its config (`session:config`: environment values
 * stay on the host), that runs `session:restart` with the edit, so the new server takes the
 * session's place, its tab and its name. Closes on Escape, the ×, or once it started.
 */
import './sessions.css';
import { type ReactElement, useEffect, useState } from 'react';
import type {
  SessionConfigView,
  StartOptions,
  StartSessionRequest,
} from '../../../shared/host-api';
import type { Result } from '../../../shared/result';
import type { SessionInfo } from '../../../shared/session-info';
import { useHost } from '../../app/host-context';
import { ErrorText } from '../../components/ErrorText';
import { appStore, useApp } from '../../store';
import { CustomServerForm } from './CustomServerForm';
import { DemoCard } from './DemoCard';
import { draftFromConfig } from './server-draft';

export function RetryDialog({
  sessionId,
  verb,
  onClose,
}: {
  sessionId: string;
  /** "retry" after a failed start, "restart" after a server that ran. */
  verb: 'retry' | 'restart';
  onClose(): void;
}): ReactElement {
  const host = useHost();
  const title = useApp((s) => s.bySession[sessionId]?.info.title ?? '');
  const catalog = useApp((s) => s.catalog);
  const [config, setConfig] = useState<SessionConfigView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void host.invoke('session:config', { sessionId }).then((r) => {
      if (!live) return;
      if (r.ok) setConfig(r.value);
      else setError(`${r.error.code}: ${r.error.message}`);
    });
    return () => {
      live = false;
    };
  }, [host, sessionId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);

  const run = async (
    start: StartSessionRequest,
    keepEnv: string[] = [],
  ): Promise<Result<SessionInfo>> => {
    const r = await host.invoke('session:restart', { sessionId, start, keepEnv });
    if (r.ok) {
      appStore.getState().openSession(r.value);
      onClose();
    }
    return r;
  };
  const label = verb === 'retry' ? 'Retry' : 'Restart';
  const demo =
    config && 'demo' in config ? catalog?.find((d) => d.id === config.demo.id) : undefined;

  return (
    <div className="overlay" data-testid="retry-dialog" data-loaded={config !== null}>
      <button
        type="button"
        className="overlay-backdrop"
        aria-label="Cancel"
        tabIndex={-1}
        onClick={onClose}
      />
      <div className="dialog retry-dialog" role="dialog" aria-label={`Edit and ${verb} ${title}`}>
        <header>
          <h2>
            Edit & {verb}: {title}
          </h2>
          <button type="button" className="small" aria-label="Cancel" onClick={onClose}>
            ×
          </button>
        </header>
        <p className="muted small-text retry-note">
          The new server takes this session’s place: its tab and its name.
          {config && 'server' in config && config.server.envNames.length > 0
            ? ' Environment values stay on the host: leave a variable empty to keep it.'
            : null}
        </p>
        <ErrorText message={error} />
        {config === null ? (
          error ? null : (
            <p className="muted">Loading its config…</p>
          )
        ) : 'server' in config ? (
          <CustomServerForm
            initial={draftFromConfig(config)}
            submitLabel={label}
            onRun={(request, keepEnv) => run(request, keepEnv)}
          />
        ) : demo ? (
          <DemoCard
            demo={demo}
            initial={{ knobs: config.demo.knobs, options: withoutDemo(config) }}
            startLabel={label}
            onStart={(request) => run(request)}
          />
        ) : (
          <p className="error-text">The demo {config.demo.id} is not in the catalog.</p>
        )}
      </div>
    </div>
  );
}

function withoutDemo(config: Extract<SessionConfigView, { demo: unknown }>): StartOptions {
  const { demo: _demo, ...options } = config;
  return options;
}
