/**
 * The "⋯ N more" button after the tabs and the list it opens: every session with what became
 * of it and its age (the ones the tab row has no room for marked), a click to show one, a close
 * each, and Close stopped / Close others (issue 22). Closes on Escape, a click outside, or a
 * choice.
 */
import { type ReactElement, useEffect, useState } from 'react';
import type { SessionInfo } from '../../../shared/session-info';
import { formatAge, plural } from '../../components/format';
import { useNow } from '../../components/useNow';
import { appStore, useApp } from '../../store';
import { sessionOutcome } from './outcome';
import { otherSessions, stoppedSessions } from './session-closing';
import { useSessionClosing } from './useSessionClosing';

export function SessionMenu({ hiddenIds }: { hiddenIds: readonly string[] }): ReactElement {
  const [open, setOpen] = useState(false);
  const more = hiddenIds.length;
  return (
    <div className="session-menu-wrap">
      <button
        type="button"
        className="session-menu-button"
        data-testid="session-menu-button"
        data-hidden={more}
        aria-haspopup="true"
        aria-expanded={open}
        title={more > 0 ? `${more} more: every session, closing many` : 'Every session'}
        onClick={() => setOpen(!open)}
      >
        ⋯{more > 0 ? ` ${more} more` : ''}
      </button>
      {open ? <SessionMenuList hiddenIds={hiddenIds} onClose={() => setOpen(false)} /> : null}
    </div>
  );
}

function SessionMenuList({
  hiddenIds,
  onClose,
}: {
  hiddenIds: readonly string[];
  onClose(): void;
}): ReactElement {
  const sessions = useApp((s) => s.sessions);
  const activeId = useApp((s) => s.activeId);
  const closing = useSessionClosing();
  const now = useNow();
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  const stopped = stoppedSessions(sessions);
  const others = otherSessions(sessions, activeId);
  const hidden = new Set(hiddenIds);
  return (
    <>
      <button
        type="button"
        className="session-menu-backdrop"
        aria-label="Close the session list"
        tabIndex={-1}
        onClick={onClose}
      />
      <div className="session-menu" data-testid="session-menu" role="menu">
        <header className="session-menu-head">
          <span className="muted small-text">{plural(sessions.length, 'session')}</span>
          <span className="session-menu-actions">
            <button
              type="button"
              className="small"
              data-testid="close-stopped"
              disabled={stopped.length === 0}
              title="Close every session whose server is over (traces and tapped sessions stay)"
              onClick={() => void closing.closeMany(stopped, true)}
            >
              Close stopped ({stopped.length})
            </button>
            <button
              type="button"
              className="small"
              data-testid="close-others"
              disabled={others.length === 0 || activeId === null}
              title="Close every session but the one shown"
              onClick={() => void closing.closeMany(others)}
            >
              Close others
            </button>
          </span>
        </header>
        <ul className="session-menu-items">
          {sessions.map((s) => (
            <SessionMenuItem
              key={s.id}
              info={s}
              now={now}
              active={s.id === activeId}
              hidden={hidden.has(s.id)}
              onOpen={() => {
                appStore.getState().setActive(s.id);
                onClose();
              }}
              onCloseSession={() => void closing.close(s)}
            />
          ))}
        </ul>
      </div>
    </>
  );
}

function SessionMenuItem({
  info: s,
  now,
  active,
  hidden,
  onOpen,
  onCloseSession,
}: {
  info: SessionInfo;
  now: number;
  active: boolean;
  hidden: boolean;
  onOpen(): void;
  onCloseSession(): void;
}): ReactElement {
  const outcome = sessionOutcome(s);
  return (
    <li
      className="session-menu-item"
      data-testid={`session-menu-item-${s.id}`}
      data-hidden={hidden}
      data-outcome={outcome.kind}
      aria-current={active ? 'true' : undefined}
    >
      <button type="button" className="session-menu-open" role="menuitem" onClick={onOpen}>
        <span className="dot" data-state={s.state} data-outcome={outcome.kind} />
        <span className="session-menu-title">{s.trace ? `${s.title} (trace)` : s.title}</span>
        <span className="session-menu-state" title={outcome.detail}>
          {outcome.badge}
        </span>
        <span className="session-menu-age" title={new Date(s.startedAt).toLocaleString()}>
          {formatAge(now - s.startedAt)}
        </span>
      </button>
      <button
        type="button"
        className="tab-close"
        aria-label={`Close ${s.title}`}
        data-testid={`session-menu-close-${s.id}`}
        onClick={onCloseSession}
      >
        ×
      </button>
    </li>
  );
}
