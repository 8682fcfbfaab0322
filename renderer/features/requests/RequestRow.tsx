import { memo, type ReactElement } from 'react';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests';
import { formatBytes } from '../../components/format';
import { canCancel, canReplay, waterfallBar } from '../../store/selectors';
import { REPLAY_LABEL, REPLAY_TITLE } from '../tap/tap-view';
import { latencyCell } from './request-columns';

interface RequestRowProps {
  record: RequestRecord;
  selected: boolean;
  span: { start: number; end: number };
  nowMs: number;
  onSelect(id: JsonRpcId): void;
  onCancel(id: JsonRpcId): void;
  onReplay(id: JsonRpcId): void;
  readOnly?: boolean;
  /** The host's traffic (a tapped session): Replay runs on a fresh server, and says so. */
  tapped?: boolean;
}

function statusTitle(r: RequestRecord): string {
  if (r.error) return `error ${r.error.code}: ${r.error.message}`;
  if (r.cancelReason) return `cancelled: ${r.cancelReason}`;
  return r.status;
}

/** One request: id, method, status, latency, response size, waterfall bar, actions. */
export const RequestRow = memo(function RequestRow({
  record: r,
  selected,
  span,
  nowMs,
  onSelect,
  onCancel,
  onReplay,
  readOnly = false,
  tapped = false,
}: RequestRowProps): ReactElement {
  const bar = waterfallBar(r, span, nowMs);
  const latency = latencyCell(r, nowMs);
  const key = String(r.id);
  return (
    <tr
      data-testid={`request-row-${key}`}
      data-status={r.status}
      aria-selected={selected}
      onClick={() => onSelect(r.id)}
    >
      <td className="mono id" title={typeof r.id === 'string' ? `"${r.id}"` : key}>
        {key}
      </td>
      <td
        className="mono method"
        title={r.replayOf !== null ? `replay of ${String(r.replayOf)}` : r.method}
      >
        {r.method}
        {r.replayOf !== null ? <span className="tag">replay</span> : null}
        {r.progressCount > 0 ? <span className="tag">{r.progressCount} progress</span> : null}
      </td>
      <td>
        <span className="status" data-status={r.status} title={statusTitle(r)}>
          {r.status}
        </span>
      </td>
      <td
        className="num"
        data-pending={r.latencyMs === null}
        data-latency={latency.kind}
        title={latency.title}
      >
        {latency.text}
      </td>
      <td className="num">{formatBytes(r.responseBytes)}</td>
      <td className="waterfall">
        <div className="waterfall-track">
          <div
            className="waterfall-bar"
            data-status={r.status}
            style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
          />
        </div>
      </td>
      <td className="actions">
        {readOnly ? null : (
          <>
            <button
              type="button"
              className="small"
              data-testid={`cancel-${key}`}
              disabled={!canCancel(r)}
              title={
                r.method === 'initialize'
                  ? 'initialize can never be cancelled'
                  : tapped
                    ? "Send notifications/cancelled to the server, between the host's lines, marked as sent by Pipescope (c)"
                    : 'Send notifications/cancelled (c)'
              }
              onClick={(e) => {
                e.stopPropagation();
                onCancel(r.id);
              }}
            >
              Cancel
            </button>
            <button
              type="button"
              className="small"
              data-testid={`replay-${key}`}
              disabled={!canReplay(r)}
              title={
                r.method === 'initialize'
                  ? 'initialize is never replayed (it would open the session again)'
                  : tapped
                    ? REPLAY_TITLE
                    : 'Send the same request again with a new id (r)'
              }
              onClick={(e) => {
                e.stopPropagation();
                onReplay(r.id);
              }}
            >
              {tapped ? REPLAY_LABEL : 'Replay'}
            </button>
          </>
        )}
      </td>
    </tr>
  );
});
