/**
 * The requests table: newest first (or sorted by latency or response size, a click on the
 * header), capped rendering, waterfall against the visible span, per-row Cancel / Replay, and
 * the recovery probe once something was cancelled. Clear and Preserve log as DevTools has them
 * (features/log/log-view.ts).
 */
import './requests.css';
import { type ReactElement, useCallback, useMemo, useState } from 'react';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests';
import { formatCount } from '../../components/format';
import { Panel } from '../../components/Panel';
import { useThrottled } from '../../components/useThrottled';
import { appStore, useApp } from '../../store';
import { hasCancellation, selectRequestsNewestFirst, waterfallSpan } from '../../store/selectors';
import { requestsFloor, updateLogView, useLogView } from '../log/log-view';
import type { SessionActions } from '../session/useSessionActions';
import { RecoveryProbe } from './RecoveryProbe';
import { RequestRow } from './RequestRow';
import { DEFAULT_SORT, nextSort, type Sort, type SortKey, sortRequests } from './request-columns';

const ROWS_SHOWN = 200;
const NOW_EVERY_MS = 250;
const EMPTY: never[] = [];

export function RequestsTable({
  sessionId,
  actions,
  readOnly = false,
  tapped = false,
}: {
  sessionId: string;
  actions: SessionActions;
  /** A trace session: no Cancel / Replay / recovery probe. */
  readOnly?: boolean;
  /** A tapped session (the host's traffic): Cancel, Replay on a fresh server, no probe. */
  tapped?: boolean;
}): ReactElement | null {
  const requests = useApp((s) => s.bySession[sessionId]?.requests);
  const dropped = useApp((s) => s.bySession[sessionId]?.requestsDropped ?? 0);
  // Time moves every snapshot; the waterfall follows it at ~4 Hz so rows can skip re-renders.
  const nowMs = useThrottled(
    useApp((s) => s.bySession[sessionId]?.metrics?.elapsedMs ?? 0),
    NOW_EVERY_MS,
  );
  const recovery = useApp((s) => s.bySession[sessionId]?.recovery ?? null);
  const cancelled = useApp((s) => {
    const data = s.bySession[sessionId];
    return data ? hasCancellation(data) : false;
  });
  const running = useApp((s) => s.bySession[sessionId]?.info.state === 'running');
  const selected = useApp((s) => s.selection[sessionId]?.requestId ?? null);
  const onSelect = useCallback(
    (id: JsonRpcId) => appStore.getState().selectRequest(sessionId, id),
    [sessionId],
  );
  const onCancel = useCallback((id: JsonRpcId) => void actions.cancel(id), [actions]);
  const onReplay = useCallback((id: JsonRpcId) => void actions.replay(id), [actions]);
  const view = useLogView(sessionId);
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const newest = requests ? selectRequestsNewestFirst(requests) : EMPTY;
  const floor = useMemo(() => requestsFloor(view, newest), [view, newest]);
  const all = useMemo(
    () => (Number.isFinite(floor) ? newest.filter((r) => r.sentAt >= floor) : newest),
    [newest, floor],
  );
  const hidden = newest.length - all.length;
  const sorted = useMemo(
    () => (sort === DEFAULT_SORT ? all : sortRequests(all, sort, nowMs)),
    [all, sort, nowMs],
  );
  const rows = useMemo(
    () => (sorted.length > ROWS_SHOWN ? sorted.slice(0, ROWS_SHOWN) : sorted),
    [sorted],
  );
  const span = useMemo(() => waterfallSpan(rows, nowMs), [rows, nowMs]);
  if (!requests) return null;
  const clear = (): void => {
    const last = newest[0] as RequestRecord | undefined;
    updateLogView(sessionId, { requestsFrom: last ? last.sentAt + 1e-3 : nowMs });
  };
  const header = (key: SortKey, label: string): ReactElement => (
    <th
      className="num sortable"
      aria-sort={sort.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button
        type="button"
        data-testid={`requests-sort-${key}`}
        title={`Sort by ${label} (again: the other way; a third column: back to newest first)`}
        onClick={() => setSort(nextSort(sort, key))}
      >
        {label}
        <span className="sort-arrow" aria-hidden="true">
          {sort.key === key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
  return (
    <Panel
      title="Requests"
      className="requests-panel"
      testId="requests-panel"
      actions={
        <>
          <span className="muted small-text" data-testid="requests-count">
            {formatCount(all.length)} kept{dropped > 0 ? ` · ${formatCount(dropped)} dropped` : ''}
            {all.length > ROWS_SHOWN ? ` · first ${ROWS_SHOWN} shown` : ''}
            {hidden > 0 ? (
              <>
                {' · '}
                <button
                  type="button"
                  className="link"
                  data-testid="requests-show-all"
                  title="Show the requests Clear (or a new initialize) hid"
                  onClick={() =>
                    updateLogView(sessionId, {
                      requestsFrom: Number.NEGATIVE_INFINITY,
                      preserve: true,
                    })
                  }
                >
                  {formatCount(hidden)} hidden
                </button>
              </>
            ) : null}
          </span>
          {sort !== DEFAULT_SORT ? (
            <button
              type="button"
              className="small"
              data-testid="requests-sort-reset"
              onClick={() => setSort(DEFAULT_SORT)}
            >
              Newest first
            </button>
          ) : null}
          <button
            type="button"
            className="small"
            data-testid="requests-clear"
            title="Hide the requests so far (the host keeps them)"
            onClick={clear}
          >
            Clear
          </button>
          <label
            className="check small-text"
            title="Keep earlier requests when a new initialize starts the session over"
          >
            <input
              type="checkbox"
              data-testid="requests-preserve"
              checked={view.preserve}
              onChange={(e) => updateLogView(sessionId, { preserve: e.target.checked })}
            />
            Preserve log
          </label>
          {!readOnly && !tapped && (cancelled || recovery) ? (
            <RecoveryProbe actions={actions} recovery={recovery} disabled={!running} />
          ) : null}
        </>
      }
    >
      <div className="table-scroll">
        <table className="requests" data-tapped={tapped}>
          <colgroup>
            <col className="c-id" />
            <col className="c-method" />
            <col className="c-status" />
            <col className="c-latency" />
            <col className="c-bytes" />
            <col className="c-waterfall" />
            <col className="c-actions" />
          </colgroup>
          <thead>
            <tr>
              <th>id</th>
              <th>method</th>
              <th>status</th>
              {header('latency', 'latency')}
              {header('size', 'response')}
              <th>waterfall</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <RequestRow
                key={`${typeof r.id}:${String(r.id)}`}
                record={r}
                selected={selected !== null && selected === r.id}
                span={span}
                nowMs={nowMs}
                onSelect={onSelect}
                onCancel={onCancel}
                onReplay={onReplay}
                readOnly={readOnly}
                tapped={tapped}
              />
            ))}
          </tbody>
        </table>
        {rows.length === 0 ? (
          <p className="empty">
            {hidden > 0 ? 'Cleared: new requests appear here.' : 'No requests yet.'}
          </p>
        ) : null}
      </div>
    </Panel>
  );
}
