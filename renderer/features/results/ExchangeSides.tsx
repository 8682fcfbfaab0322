/**
 * The two sides of a request's exchange in the detail pane: the request line as pretty JSON,
 * and the response rendered (ResultContent) or as JSON. A line over WHOLE_MAX_BYTES arrives as
 * its first page only: the pane shows that much (a tool result's first text, decoded as far as
 * the page goes) and hands the rest to the paged frame viewer (features/frames).
 */
import { type ReactElement, useMemo, useState } from 'react';
import type { RequestRecord } from '../../../shared/requests';
import { ErrorText } from '../../components/ErrorText';
import { formatBytes } from '../../components/format';
import { Segmented } from '../../components/Segmented';
import { prettyJson } from '../frames/pretty-json';
import { noResponseReason } from './exchange';
import { ResultContent, TextBlock } from './ResultContent';
import { partialFirstText, responseView } from './result-view';
import type { FrameText } from './useFrameText';

type Ready = Extract<FrameText, { state: 'ready' }>;

/** A line that is not ready, in words; null when it is. */
function NotReady({ text }: { text: FrameText }): ReactElement | null {
  switch (text.state) {
    case 'ready':
      return null;
    case 'none':
      return <p className="block-placeholder">No line.</p>;
    case 'loading':
      return <p className="block-placeholder">Loading…</p>;
    case 'evicted':
      return (
        <p className="block-placeholder">
          The frame store no longer holds this line (it keeps a bounded amount).
        </p>
      );
    case 'error':
      return <ErrorText message={`Could not load the line: ${text.message}`} />;
  }
}

function JsonText({ text, testId }: { text: Ready; testId: string }): ReactElement {
  const pretty = useMemo(() => prettyJson(text.text, text.totalBytes), [text]);
  return (
    <pre className="exchange-json mono" data-testid={testId}>
      {pretty ?? text.text}
    </pre>
  );
}

/** The first page of a large line, and the way to the rest. */
function LargeLine({
  text,
  onOpenFrame,
}: {
  text: Ready;
  onOpenFrame: (() => void) | null;
}): ReactElement {
  const first = useMemo(() => partialFirstText(text.text), [text]);
  return (
    <div className="exchange-large" data-testid="exchange-large">
      <p className="small-text">
        {formatBytes(text.totalBytes)}: too large to load whole here. Shown: the first{' '}
        {formatBytes(text.loadedBytes)}
        {first !== null ? ', and the beginning of its first text block' : ''}.
      </p>
      {onOpenFrame ? (
        <button
          type="button"
          className="small"
          data-testid="open-frame-viewer"
          onClick={onOpenFrame}
        >
          Page through it in the frame viewer
        </button>
      ) : null}
      {first !== null ? (
        <TextBlock text={first} compact={false} testId="result-text" />
      ) : (
        <pre className="exchange-json mono">{text.text}</pre>
      )}
    </div>
  );
}

export function RequestSide({
  text,
  onOpenFrame,
}: {
  text: FrameText;
  onOpenFrame: (() => void) | null;
}): ReactElement {
  return (
    <section className="exchange-side" data-testid="detail-request" data-state={text.state}>
      <header className="exchange-head">
        <h3>Request</h3>
      </header>
      {text.state !== 'ready' ? (
        <NotReady text={text} />
      ) : text.complete ? (
        <JsonText text={text} testId="request-json" />
      ) : (
        <LargeLine text={text} onOpenFrame={onOpenFrame} />
      )}
    </section>
  );
}

type Mode = 'rendered' | 'json';

export function ResponseSide({
  record,
  text,
  onOpenFrame,
}: {
  record: RequestRecord;
  text: FrameText;
  onOpenFrame: (() => void) | null;
}): ReactElement {
  const [mode, setMode] = useState<Mode>('rendered');
  const reason = noResponseReason(record);
  const ready = text.state === 'ready' && text.complete ? text : null;
  const view = useMemo(
    () => (ready ? responseView(record.method, ready.text) : null),
    [ready, record.method],
  );
  return (
    <section
      className="exchange-side"
      data-testid="detail-response"
      data-state={reason ? 'none' : text.state}
    >
      <header className="exchange-head">
        <h3>Response</h3>
        {ready ? (
          <Segmented
            label="response view"
            options={['rendered', 'json'] as const}
            value={mode}
            onChange={setMode}
            testIdPrefix="response-mode-"
          />
        ) : null}
      </header>
      {reason !== null ? (
        <p className="block-placeholder">{reason}</p>
      ) : text.state !== 'ready' ? (
        <NotReady text={text} />
      ) : !text.complete ? (
        <LargeLine text={text} onOpenFrame={onOpenFrame} />
      ) : mode === 'json' || !view ? (
        <JsonText text={text} testId="response-json" />
      ) : (
        <ResultContent response={view} />
      )}
    </section>
  );
}
