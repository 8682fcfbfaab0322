/**
 * StderrPanel: the server's stderr as plain monospace lines, virtualized and following the
 * bottom. Fed by the store's capped stderr text (the parent owns the cap and counts what it
 * skipped); this panel only strips ANSI escapes, splits lines and filters, each memoized.
 */
import { type ReactElement, type ReactNode, useMemo, useState } from 'react';
import { VirtualList } from '../../components/VirtualList.js';
import { filterLines, skippedNote, splitLines } from './lines.js';
import './stderr.css';

export interface StderrPanelProps {
  text: string;
  skippedBytes: number;
}

const ROW_HEIGHT = 18;

function renderLine(line: string): ReactNode {
  // Long lines are clipped to the panel; the full line is in the title.
  return (
    <div className="ps-stderr-line" title={line.length > 120 ? line : undefined}>
      {line === '' ? '\u00a0' : line}
    </div>
  );
}

function lineKey(_line: string, index: number): number {
  return index;
}

export function StderrPanel({ text, skippedBytes }: StderrPanelProps): ReactElement {
  const [query, setQuery] = useState('');
  const lines = useMemo(() => splitLines(text), [text]);
  const shown = useMemo(() => filterLines(lines, query), [lines, query]);
  const note = skippedNote(skippedBytes);

  return (
    <section className="ps-stderr" data-testid="stderr-panel" aria-label="stderr">
      <div className="ps-stderr-toolbar">
        <input
          type="search"
          aria-label="Filter stderr"
          placeholder="filter"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <span className="ps-stderr-count">
          {query.trim() === ''
            ? `${lines.length.toLocaleString()} lines`
            : `${shown.length.toLocaleString()} of ${lines.length.toLocaleString()} lines`}
        </span>
      </div>
      {note ? (
        <p className="ps-stderr-note" data-testid="stderr-skipped">
          {note}
        </p>
      ) : null}
      <div className="ps-stderr-list">
        {shown.length === 0 ? (
          <p className="ps-stderr-empty">
            {lines.length === 0 ? 'No stderr output yet.' : 'No lines match the filter.'}
          </p>
        ) : (
          <VirtualList
            items={shown}
            rowHeight={ROW_HEIGHT}
            height="100%"
            renderRow={renderLine}
            getKey={lineKey}
            stickToBottom
          />
        )}
      </div>
    </section>
  );
}
