/**
 * The answer of the call the composer just made, under its form (as the MCP Inspector shows
 * it): waiting, then the result rendered compact (text, images, isError, structuredContent), a
 * JSON-RPC error, a timeout or a cancellation in words. Follows one request id the composer
 * owns; the record comes from the store, the response line from the frame store (bounded).
 */
import './results.css';
import { type ReactElement, useMemo } from 'react';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests';
import { formatBytes, formatMs } from '../../components/format';
import { appStore } from '../../store';
import { ResultContent, TextBlock } from './ResultContent';
import { partialFirstText, responseView } from './result-view';
import { useExchange } from './useExchange';
import type { FrameText } from './useFrameText';

/** What the record alone says of a call that has no answer to render. */
function outcome(r: RequestRecord): string | null {
  switch (r.status) {
    case 'pending':
      return 'Waiting for the answer…';
    case 'timed-out':
      return r.error
        ? `Timed out: ${r.error.message}`
        : 'Timed out: no answer before the request timeout.';
    case 'cancelled':
      return `Cancelled${r.cancelReason ? `: ${r.cancelReason}` : ''}; no answer arrived.`;
    default:
      return null;
  }
}

function Body({ r, text }: { r: RequestRecord; text: FrameText }): ReactElement {
  const ready = text.state === 'ready' ? text : null;
  const view = useMemo(
    () => (ready?.complete ? responseView(r.method, ready.text) : null),
    [ready, r.method],
  );
  const first = useMemo(
    () => (ready && !ready.complete ? partialFirstText(ready.text) : null),
    [ready],
  );
  const said = outcome(r);
  if (said !== null && r.responseBytes === null) {
    return <p className="block-placeholder">{said}</p>;
  }
  // A failure the host made (oversize, the connection closed): no line to render.
  if (r.error && r.responseBytes === null) {
    return (
      <p className="error-text" data-testid="call-error">
        error {r.error.code}: {r.error.message}
      </p>
    );
  }
  if (view) return <ResultContent response={view} compact />;
  if (ready && !ready.complete) {
    return (
      <>
        <p className="muted small-text">
          A {formatBytes(ready.totalBytes)} answer: the start of it here, the rest in Details.
        </p>
        {first !== null ? <TextBlock text={first} compact testId="result-text" /> : null}
      </>
    );
  }
  if (text.state === 'evicted') {
    return <p className="block-placeholder">The frame store no longer holds the answer.</p>;
  }
  if (text.state === 'error') return <p className="error-text">{text.message}</p>;
  return <p className="block-placeholder">Loading the answer…</p>;
}

export function CallAnswer({
  sessionId,
  requestId,
}: {
  sessionId: string;
  requestId: JsonRpcId;
}): ReactElement | null {
  const { record, response } = useExchange(sessionId, requestId, false);
  if (!record) return null;
  return (
    <section
      className="call-answer"
      data-testid="call-answer"
      data-request-id={String(record.id)}
      data-status={record.status}
    >
      <div className="call-answer-head">
        <h3>Answer</h3>
        <span className="status" data-status={record.status}>
          {record.status}
        </span>
        <span className="muted">{formatMs(record.latencyMs)}</span>
        <span className="muted">{formatBytes(record.responseBytes)}</span>
        <button
          type="button"
          className="small"
          data-testid="call-answer-details"
          title="Select this request: its detail pane shows request, response and the audit"
          onClick={() => appStore.getState().selectRequest(sessionId, record.id)}
        >
          Details
        </button>
      </div>
      <Body r={record} text={response} />
    </section>
  );
}
