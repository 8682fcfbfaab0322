/**
 * StderrPanel: the server's stderr as plain monospace lines, virtualized and following the
 * bottom. Fed by the store's capped stderr text (the parent owns the cap and counts what it
 * skipped); this panel only strips ANSI escapes, splits lines and filters, each memoized.
 */
import { type ReactElement, type ReactNode, useMemo, useState } from 'react';
import { formatCount, plural } from '../../components/format.js';
import { LogList } from '../../components/LogList.js';
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
    <section className="ps-log" data-testid="stderr-panel" aria-label="stderr">
      <div className="ps-log-toolbar">
        <input
          type="search"
          aria-label="Filter stderr"
          placeholder="filter"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <span className="ps-log-count">
          {query.trim() === ''
            ? plural(lines.length, 'line')
            : `${formatCount(shown.length)} of ${plural(lines.length, 'line')}`}
        </span>
      </div>
      {note ? (
        <p className="ps-stderr-note" data-testid="stderr-skipped">
          {note}
        </p>
      ) : null}
      <LogList
        items={shown}
        empty={
          shown.length > 0
            ? null
            : lines.length === 0
              ? 'No stderr output yet.'
              : 'No lines match the filter.'
        }
        rowHeight={ROW_HEIGHT}
        renderRow={renderLine}
        getKey={lineKey}
        stickToBottom
      />
    </section>
  );
}
