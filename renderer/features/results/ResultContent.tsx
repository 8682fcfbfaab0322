/**
 * A result, rendered: the "tool error" badge when `isError`, each content block as what it is
 * (text with its whitespace, an image, a placeholder for audio, a resource by its uri), then
 * `structuredContent` as a tree. The detail pane draws it full; the composer `compact`.
 */
import { type ReactElement, useState } from 'react';
import { formatBytes, formatCount } from '../../components/format';
import { JsonTree } from './JsonTree';
import {
  type BlockView,
  collapsedText,
  type ResponseView,
  TEXT_COLLAPSE_CHARS,
  TEXT_COLLAPSE_LINES,
} from './result-view';

const COMPACT_CHARS = 1200;
const COMPACT_LINES = 12;

export function TextBlock({
  text,
  compact,
  testId,
}: {
  text: string;
  compact: boolean;
  testId?: string;
}): ReactElement {
  const [all, setAll] = useState(false);
  const head = all
    ? null
    : collapsedText(
        text,
        compact ? COMPACT_CHARS : TEXT_COLLAPSE_CHARS,
        compact ? COMPACT_LINES : TEXT_COLLAPSE_LINES,
      );
  return (
    <div className="result-text-wrap">
      <pre className="result-text" data-testid={testId}>
        {head ?? text}
      </pre>
      {head !== null ? (
        <button type="button" className="small" onClick={() => setAll(true)}>
          Show all ({formatCount(text.length)} characters)
        </button>
      ) : null}
      {all && collapsedText(text) !== null ? (
        <button type="button" className="small" onClick={() => setAll(false)}>
          Show less
        </button>
      ) : null}
    </div>
  );
}

function BlockHead({ b, size }: { b: BlockView; size: number | null }): ReactElement {
  const kind = b.kind === 'other' ? b.type : b.kind;
  return (
    <div className="block-head">
      {b.role ? <span className="block-role">{b.role}</span> : null}
      <span className="block-kind">{kind}</span>
      {'mimeType' in b && b.mimeType ? <span className="muted">{b.mimeType}</span> : null}
      {size !== null ? <span className="muted">{formatBytes(size)}</span> : null}
    </div>
  );
}

function Block({ b, compact }: { b: BlockView; compact: boolean }): ReactElement {
  switch (b.kind) {
    case 'text':
      return (
        <>
          <BlockHead b={b} size={b.bytes} />
          <TextBlock text={b.text} compact={compact} testId="result-text" />
        </>
      );
    case 'image':
      return (
        <>
          <BlockHead b={b} size={b.bytes} />
          {b.src ? (
            <img className="result-image" src={b.src} alt={`content block, ${b.mimeType}`} />
          ) : (
            <p className="block-placeholder">Not shown: {b.problem}.</p>
          )}
        </>
      );
    case 'audio':
      return (
        <>
          <BlockHead b={b} size={b.bytes} />
          <p className="block-placeholder" data-testid="result-audio">
            Audio, {formatBytes(b.bytes)} of base64: not played here (the page allows no media from
            data: URIs).
          </p>
        </>
      );
    case 'resource':
      return (
        <>
          <BlockHead b={b} size={b.blobBytes} />
          <p className="block-uri mono" data-testid="result-resource-uri">
            {b.uri}
          </p>
          {b.text !== null ? <TextBlock text={b.text} compact={compact} /> : null}
          {b.text === null && b.blobBytes !== null ? (
            <p className="block-placeholder">Binary blob, {formatBytes(b.blobBytes)} of base64.</p>
          ) : null}
        </>
      );
    case 'resource_link':
      return (
        <>
          <BlockHead b={b} size={null} />
          <p className="block-uri mono" data-testid="result-resource-link">
            {b.name ? <strong>{b.name} </strong> : null}
            {b.uri}
          </p>
          {b.description ? <p className="muted small-text">{b.description}</p> : null}
        </>
      );
    default:
      return (
        <>
          <BlockHead b={b} size={null} />
          <JsonTree value={b.value} openDepth={1} />
        </>
      );
  }
}

export function ResultContent({
  response,
  compact = false,
}: {
  response: ResponseView;
  compact?: boolean;
}): ReactElement {
  if (response.kind === 'unparsed') {
    return <p className="block-placeholder">The response line is {response.reason}.</p>;
  }
  if (response.kind === 'error') {
    return (
      <div className="rpc-error" data-testid="result-rpc-error">
        <strong>
          JSON-RPC error{response.code !== null ? ` ${response.code}` : ''}: {response.message}
        </strong>
        {response.data !== undefined ? <JsonTree value={response.data} openDepth={1} /> : null}
      </div>
    );
  }
  const v = response.view;
  return (
    <div className="result-content" data-compact={compact} data-is-error={v.isError}>
      {v.isError ? (
        <p className="tool-error" data-testid="tool-error">
          <span className="tool-error-badge">tool error</span>
          <span className="small-text">isError: true — the tool says this call failed</span>
        </p>
      ) : null}
      {v.hasBlocks ? (
        v.blocks.length === 0 ? (
          <p className="block-placeholder">No content blocks.</p>
        ) : (
          v.blocks.map((b, i) => (
            // Blocks have no identity but their place in the result.
            // biome-ignore lint/suspicious/noArrayIndexKey: a result's blocks never reorder
            <div key={i} className="result-block" data-kind={b.kind}>
              <Block b={b} compact={compact} />
            </div>
          ))
        )
      ) : (
        <JsonTree value={v.result} openDepth={compact ? 1 : 2} />
      )}
      {v.structured ? (
        <div className="result-block" data-kind="structured">
          <div className="block-head">
            <span className="block-kind">structuredContent</span>
          </div>
          <JsonTree value={v.structured.value} openDepth={compact ? 0 : 2} testId="structured" />
        </div>
      ) : null}
    </div>
  );
}
