/**
 * The requests table: newest first, capped rendering, waterfall against the visible span,
 * per-row Cancel / Replay, and the recovery probe once something was cancelled.
 */
import './requests.css';
import { type ReactElement, useCallback, useMemo } from 'react';
import type { JsonRpcId } from '../../../shared/requests';
import { formatCount } from '../../components/format';
import { Panel } from '../../components/Panel';
import { useThrottled } from '../../components/useThrottled';
import { appStore, useApp } from '../../store';
import { hasCancellation, selectRequestsNewestFirst, waterfallSpan } from '../../store/selectors';
import type { SessionActions } from '../session/useSessionActions';
import { RecoveryProbe } from './RecoveryProbe';
import { RequestRow } from './RequestRow';

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
  const all = requests ? selectRequestsNewestFirst(requests) : EMPTY;
  const rows = useMemo(() => (all.length > ROWS_SHOWN ? all.slice(0, ROWS_SHOWN) : all), [all]);
  const span = useMemo(() => waterfallSpan(rows, nowMs), [rows, nowMs]);
  if (!requests) return null;
  return (
    <Panel
      title="Requests"
      className="requests-panel"
      testId="requests-panel"
      actions={
        <>
          <span className="muted small-text">
            {formatCount(all.length)} kept{dropped > 0 ? ` · ${formatCount(dropped)} dropped` : ''}
            {all.length > ROWS_SHOWN ? ` · newest ${ROWS_SHOWN} shown` : ''}
          </span>
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
              <th className="num">latency</th>
              <th className="num">response</th>
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
        {rows.length === 0 ? <p className="empty">No requests yet.</p> : null}
      </div>
    </Panel>
  );
}
