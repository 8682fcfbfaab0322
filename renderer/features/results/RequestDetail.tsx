/**
 * The request detail pane, as DevTools shows a selected request: what it was (method, status,
 * timing, sizes, its error), the result audit, its request and its response side by side, and
 * copy buttons: the request line, the response line, both as one JSON document (the pair,
 * with status and timing: what an issue report wants), the call as a `pipescope probe` command.
 * Follows the requests table's selection (store `selection[sessionId].requestId`); closing it
 * clears the selection. Large lines go to the paged frame viewer (selection `frameSeq`).
 */
import './results.css';
import { type ReactElement, useCallback, useEffect, useMemo, useState } from 'react';
import type { RequestRecord } from '../../../shared/requests';
import { isAuditedMethod } from '../../../shared/result-audit';
import { formatBytes, formatMs } from '../../components/format';
import { appStore, useApp } from '../../store';
import { copyText } from '../frames/viewer-actions';
import { requestPair } from '../requests/request-columns';
import { AuditSummary } from './AuditSummary';
import { RequestSide, ResponseSide } from './ExchangeSides';
import { probeCommand } from './probe-command';
import { requestParams } from './result-view';
import { useExchange } from './useExchange';
import type { FrameText } from './useFrameText';

const COPIED_MS = 2000;

/** The whole text of a line, when it was loaded whole. */
const wholeText = (t: FrameText): string | null =>
  t.state === 'ready' && t.complete ? t.text : null;

function CopyButton({
  label,
  text,
  why,
  testId,
}: {
  label: string;
  text: string | null;
  /** Why there is nothing to copy (the button's title when disabled). */
  why: string;
  testId: string;
}): ReactElement {
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    if (said === null) return;
    const timer = setTimeout(() => setSaid(null), COPIED_MS);
    return () => clearTimeout(timer);
  }, [said]);
  return (
    <button
      type="button"
      className="small"
      data-testid={testId}
      disabled={text === null}
      title={text === null ? why : undefined}
      onClick={() => {
        if (text === null) return;
        void copyText(text).then((ok) => setSaid(ok ? 'Copied' : 'Clipboard unavailable'));
      }}
    >
      {said ?? label}
    </button>
  );
}

function Facts({ r }: { r: RequestRecord }): ReactElement {
  return (
    <div className="detail-facts">
      <span className="mono detail-method">{r.method}</span>
      <span className="muted mono">id {JSON.stringify(r.id)}</span>
      <span className="status" data-status={r.status}>
        {r.status}
      </span>
      <span className="muted">{formatMs(r.latencyMs)}</span>
      <span className="muted" title="request line ↑, response line ↓ (bytes, without newline)">
        ↑ {formatBytes(r.requestBytes)} · ↓ {formatBytes(r.responseBytes)}
      </span>
      {r.replayOf !== null ? (
        <span className="muted">replay of {JSON.stringify(r.replayOf)}</span>
      ) : null}
    </div>
  );
}

function Problem({ r }: { r: RequestRecord }): ReactElement | null {
  if (r.error) {
    return (
      <p className="detail-error" data-testid="detail-error">
        error {r.error.code}: {r.error.message}
      </p>
    );
  }
  if (r.cancelReason) {
    return <p className="detail-note">cancelled: {r.cancelReason}</p>;
  }
  return null;
}

export function RequestDetail({ sessionId }: { sessionId: string }): ReactElement | null {
  const id = useApp((s) => s.selection[sessionId]?.requestId ?? null);
  const { record, requestSeq, responseSeq, request, response } = useExchange(sessionId, id);
  const info = useApp((s) => s.bySession[sessionId]?.info);
  const openFrame = useCallback(
    (seq: number | null) =>
      seq === null ? null : () => appStore.getState().selectFrame(sessionId, seq),
    [sessionId],
  );
  const close = useCallback(() => appStore.getState().selectRequest(sessionId, null), [sessionId]);
  const requestText = wholeText(request);
  const probe = useMemo(
    () =>
      record && info
        ? probeCommand({
            session: info,
            method: record.method,
            params: requestText === null ? undefined : requestParams(requestText),
          })
        : null,
    [record, info, requestText],
  );
  if (!record) return null;
  return (
    <section
      className="panel request-detail"
      data-testid="request-detail"
      data-request-id={String(record.id)}
      data-status={record.status}
      data-audited={record.audit !== undefined}
    >
      <header className="panel-head">
        <h2>Request detail</h2>
        <Facts r={record} />
        <div className="panel-actions">
          <CopyButton
            label="Copy request"
            text={requestText}
            why="The request line is not loaded whole."
            testId="copy-request"
          />
          <CopyButton
            label="Copy response"
            text={wholeText(response)}
            why="No response line loaded whole (too large: copy it from the frame viewer)."
            testId="copy-response"
          />
          <CopyButton
            label="Copy pair"
            text={
              requestText === null ? null : requestPair(record, requestText, wholeText(response))
            }
            why="The request line is not loaded whole."
            testId="copy-pair"
          />
          {probe ? (
            <CopyButton
              label="Copy as probe command"
              text={probe.ok ? probe.text : null}
              why={probe.ok ? '' : `No probe command: ${probe.reason}.`}
              testId="copy-probe"
            />
          ) : null}
          <button
            type="button"
            className="small"
            title="Close (clears the selection)"
            data-testid="close-request-detail"
            onClick={close}
          >
            ×
          </button>
        </div>
      </header>
      <div className="panel-body detail-body">
        <Problem r={record} />
        {record.audit ? (
          <AuditSummary audit={record.audit} />
        ) : isAuditedMethod(record.method) && record.status === 'completed' ? (
          <p className="muted small-text" data-testid="audit-pending">
            No audit of this answer yet (a large one is audited off the main thread).
          </p>
        ) : null}
        <div className="exchange-sides">
          <RequestSide text={request} onOpenFrame={openFrame(requestSeq)} />
          <ResponseSide record={record} text={response} onOpenFrame={openFrame(responseSeq)} />
        </div>
        {probe?.ok ? (
          <div className="probe-row">
            <span className="prompt">$</span>
            <code data-testid="probe-command" data-command={probe.text}>
              {probe.text}
            </code>
            {probe.notes.map((n) => (
              <p key={n} className="muted small-text">
                {n}
              </p>
            ))}
          </div>
        ) : null}
      </div>
    </section>
  );
}
