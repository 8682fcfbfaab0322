/**
 * The tab bar: the start screen plus one tab per session, each with its state and a close, and
 * the "⋯ N more" list (SessionMenu) for the tabs the row has no room for (issue 22).
 *
 * Owns: which tabs are shown. Every tab stays in the DOM; the ones that do not fit are laid
 * out off the row (measurable, invisible), and `fitTabs` picks from their widths, keeping the
 * active tab shown. Re-measured when the sessions, the active tab or a size change.
 *
 * A tapped session's tab carries a badge (the host and its pid as the tooltip); its close only
 * hides the tab here, since the host owns its server (the tap refuses session:close).
 */
import '../tap/tap.css';
import './tabs.css';
import { type ReactElement, useCallback, useLayoutEffect, useRef, useState } from 'react';
import type { SessionInfo } from '../../../shared/session-info';
import { appStore, useApp } from '../../store';
import { closeTitle, tapBadgeTitle } from '../tap/tap-view';
import { sessionOutcome } from './outcome';
import { SessionMenu } from './SessionMenu';
import { fitTabs } from './tab-fit';
import { useSessionClosing } from './useSessionClosing';

/** px between two tabs (`.tabs { gap }`). */
const GAP = 2;

export function SessionTabs(): ReactElement {
  const sessions = useApp((s) => s.sessions);
  const activeId = useApp((s) => s.activeId);
  const closing = useSessionClosing();
  const nav = useRef<HTMLElement>(null);
  const tabs = useRef(new Map<string, HTMLDivElement>());
  const [hidden, setHidden] = useState<readonly string[]>([]);

  const measure = useCallback(() => {
    const row = nav.current;
    if (!row) return;
    const start = row.querySelector<HTMLElement>('[data-testid="tab-start"]');
    const room = row.clientWidth - (start?.offsetWidth ?? 0) - GAP;
    const widths = sessions.map((s) => tabs.current.get(s.id)?.offsetWidth ?? 0);
    const fit = fitTabs(
      widths,
      room,
      sessions.findIndex((s) => s.id === activeId),
      GAP,
    );
    const next = fit.hidden.map((i) => sessions[i].id);
    setHidden((prev) =>
      prev.length === next.length && prev.every((id, i) => id === next[i]) ? prev : next,
    );
  }, [sessions, activeId]);

  useLayoutEffect(() => {
    measure();
    const row = nav.current;
    if (!row || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => measure());
    observer.observe(row);
    for (const el of tabs.current.values()) observer.observe(el);
    return () => observer.disconnect();
  }, [measure]);

  const hiddenSet = new Set(hidden);
  return (
    <>
      <nav className="tabs" aria-label="Sessions" ref={nav} data-hidden-tabs={hidden.length}>
        <button
          type="button"
          className="tab"
          aria-current={activeId === null ? 'page' : undefined}
          data-testid="tab-start"
          onClick={() => appStore.getState().setActive(null)}
        >
          + New
        </button>
        {sessions.map((s) => (
          <SessionTab
            key={s.id}
            info={s}
            active={activeId === s.id}
            overflow={hiddenSet.has(s.id)}
            onClose={() => void closing.close(s)}
            register={(el) => {
              if (el) tabs.current.set(s.id, el);
              else tabs.current.delete(s.id);
            }}
          />
        ))}
      </nav>
      {sessions.length > 0 ? <SessionMenu hiddenIds={hidden} /> : null}
    </>
  );
}

function SessionTab({
  info: s,
  active,
  overflow,
  onClose,
  register,
}: {
  info: SessionInfo;
  active: boolean;
  overflow: boolean;
  onClose(): void;
  register(el: HTMLDivElement | null): void;
}): ReactElement {
  const outcome = sessionOutcome(s);
  const tip = `${s.title} · ${outcome.badge}${s.pid ? ` · pid ${s.pid}` : ''}`;
  return (
    <div
      ref={register}
      className="tab"
      data-testid={`tab-${s.id}`}
      data-overflow={overflow ? 'true' : undefined}
      aria-hidden={overflow ? true : undefined}
      aria-current={active ? 'page' : undefined}
    >
      <button
        type="button"
        className="tab-open"
        title={tip}
        tabIndex={overflow ? -1 : undefined}
        onClick={() => appStore.getState().setActive(s.id)}
      >
        <span className="dot" data-state={s.state} data-outcome={outcome.kind} />
        {s.trace ? <span className="tab-trace">TRACE</span> : null}
        {s.tap ? (
          <span className="tab-tap" data-testid={`tab-tapped-${s.id}`} title={tapBadgeTitle(s.tap)}>
            {s.tap.replay ? 'REPLAY' : 'TAPPED'}
          </span>
        ) : null}
        <span className="tab-title">{s.title}</span>
      </button>
      <button
        type="button"
        className="tab-close"
        aria-label={`Close ${s.title}`}
        data-testid={`close-${s.id}`}
        title={closeTitle(s)}
        tabIndex={overflow ? -1 : undefined}
        onClick={onClose}
      >
        ×
      </button>
    </div>
  );
}
