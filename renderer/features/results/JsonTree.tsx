/**
 * A collapsible JSON tree (structuredContent, unknown blocks, results without content). A
 * closed node renders no children, and an open one at most CHILDREN_SHOWN of them, so a
 * 10,000-item array or a 1e5-deep nesting costs only what is opened.
 */
import { type ReactElement, useState } from 'react';

const CHILDREN_SHOWN = 200;
const STRING_SHOWN = 2000;

function Scalar({ value }: { value: unknown }): ReactElement {
  if (typeof value === 'string') {
    const cut = value.length > STRING_SHOWN;
    return (
      <span className="jt-string" title={cut ? `${value.length} characters` : undefined}>
        {JSON.stringify(cut ? value.slice(0, STRING_SHOWN) : value)}
        {cut ? (
          <span className="muted"> … {value.length - STRING_SHOWN} more characters</span>
        ) : null}
      </span>
    );
  }
  if (value === null || typeof value === 'boolean') {
    return <span className="jt-literal">{String(value)}</span>;
  }
  if (typeof value === 'number') return <span className="jt-number">{String(value)}</span>;
  return <span className="muted">{value === undefined ? 'undefined' : String(value)}</span>;
}

function summaryOf(value: object): string {
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  const n = Object.keys(value).length;
  return `{${n} key${n === 1 ? '' : 's'}}`;
}

function JsonNode({
  name,
  value,
  depth,
  openDepth,
}: {
  name: string | null;
  value: unknown;
  depth: number;
  openDepth: number;
}): ReactElement {
  const [open, setOpen] = useState(depth < openDepth);
  const [shown, setShown] = useState(CHILDREN_SHOWN);
  const label = name === null ? null : <span className="jt-key">{name}: </span>;
  if (typeof value !== 'object' || value === null) {
    return (
      <div className="jt-row">
        {label}
        <Scalar value={value} />
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  return (
    <div className="jt-node">
      <button
        type="button"
        className="jt-toggle"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="jt-caret">{open ? '▾' : '▸'}</span>
        {label}
        <span className="muted">{summaryOf(value)}</span>
      </button>
      {open ? (
        <div className="jt-children">
          {entries.slice(0, shown).map(([k, v]) => (
            <JsonNode key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > shown ? (
            <button
              type="button"
              className="small"
              onClick={() => setShown(shown + CHILDREN_SHOWN)}
            >
              Show {Math.min(CHILDREN_SHOWN, entries.length - shown)} more of{' '}
              {entries.length - shown}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

export function JsonTree({
  value,
  openDepth = 2,
  testId,
}: {
  value: unknown;
  /** Levels open at first. */
  openDepth?: number;
  testId?: string;
}): ReactElement {
  return (
    <div className="json-tree mono" data-testid={testId}>
      <JsonNode name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}
