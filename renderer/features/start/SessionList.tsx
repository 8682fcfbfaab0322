/**
 * The start screen's list of open sessions (issue 22): sessions live in the host, so a page
 * load or a new window finds the ones already there. Each with what became of it and its
 * age, a click to open it, a close; and Close stopped. Shown only when there are sessions.
 */
import './sessions.css';
import type { ReactElement } from 'react';
import { formatAge } from '../../components/format';
import { Panel } from '../../components/Panel';
import { useNow } from '../../components/useNow';
import { appStore, useApp } from '../../store';
import { sessionOutcome } from '../session/outcome';
import { stoppedSessions } from '../session/session-closing';
import { useSessionClosing } from '../session/useSessionClosing';

export function SessionList(): ReactElement | null {
  const sessions = useApp((s) => s.sessions);
  const closing = useSessionClosing();
  const now = useNow();
  if (sessions.length === 0) return null;
  const stopped = stoppedSessions(sessions);
  return (
    <Panel
      title={`Sessions (${sessions.length})`}
      testId="start-sessions"
      className="start-sessions"
      actions={
        <button
          type="button"
          className="small"
          data-testid="start-close-stopped"
          disabled={stopped.length === 0}
          title="Close every session whose server is over (traces and tapped sessions stay)"
          onClick={() => void closing.closeMany(stopped, true)}
        >
          Close stopped ({stopped.length})
        </button>
      }
    >
      <table className="start-session-table">
        <tbody>
          {sessions.map((s) => {
            const outcome = sessionOutcome(s);
            const age = formatAge(now - s.startedAt);
            return (
              <tr key={s.id} data-testid={`start-session-${s.id}`} data-outcome={outcome.kind}>
                <td className="start-session-name">
                  <button
                    type="button"
                    className="link-button"
                    data-testid={`start-open-${s.id}`}
                    title={`Open ${s.title}`}
                    onClick={() => appStore.getState().setActive(s.id)}
                  >
                    <span className="dot" data-state={s.state} data-outcome={outcome.kind} />
                    {s.title}
                  </button>
                </td>
                <td className="muted start-session-kind">
                  {s.trace ? 'trace' : s.tap ? 'tapped' : s.demoId ? 'demo' : 'server'}
                </td>
                <td className="start-session-state" title={outcome.detail}>
                  {outcome.badge}
                </td>
                <td
                  className="muted start-session-age"
                  title={new Date(s.startedAt).toLocaleString()}
                >
                  {s.trace ? 'recorded' : 'started'} {age === 'just now' ? age : `${age} ago`}
                </td>
                <td>
                  <button
                    type="button"
                    className="tab-close"
                    aria-label={`Close ${s.title}`}
                    data-testid={`start-close-${s.id}`}
                    onClick={() => void closing.close(s)}
                  >
                    ×
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Panel>
  );
}
