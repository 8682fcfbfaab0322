/**
 * FrameViewer: one frame's bytes, paged from main (see paging.ts): header facts (size,
 * sha-256, held), head and tail text with "load more", pretty JSON for small frames, copy and
 * save; in a large frame, go to a byte offset or find a text (FrameNavigator: the host
 * searches, the viewer shows a 64 KiB window there). Fed by FramesPanel's selection via the
 * parent, which supplies `fetchPage` and `find`; Escape or the close button call `onClose`.
 */
import { type ReactElement, useEffect, useMemo, useRef, useState } from 'react';
import type { FrameSummary } from '../../../shared/frames.js';
import './frame-viewer.css';
import {
  type FindInFrame,
  FrameNavigator,
  FrameWindowView,
  useFrameWindow,
} from './FrameNavigator.js';
import {
  directionArrow,
  directionLabel,
  formatBytes,
  formatExactBytes,
  formatId,
} from './format.js';
import { isProblemKind } from './frame-filter.js';
import {
  capReached,
  fullText,
  gapBytes,
  LOAD_CAP_BYTES,
  loadedBytes,
  nextPage,
  PAGE_BYTES,
  PRETTY_MAX_BYTES,
  saveDecision,
  WHOLE_MAX_BYTES,
} from './paging.js';
import { prettyJson } from './pretty-json.js';
import { type FetchPage, useFramePages } from './useFramePages.js';
import { copyText, saveText } from './viewer-actions.js';

export interface FrameViewerProps {
  summary: FrameSummary;
  fetchPage: FetchPage;
  /** Matches inside the frame, searched on the host (absent: no "find in frame"). */
  find?: FindInFrame;
  onClose(): void;
}

export function FrameViewer({ summary, fetchPage, find, onClose }: FrameViewerProps): ReactElement {
  const { state, error, frame, loadingMore, loadMore } = useFramePages(summary, fetchPage);
  const total0 = frame?.totalBytes ?? summary.bytes;
  const win = useFrameWindow(fetchPage, total0);
  const large = summary.held && total0 > WHOLE_MAX_BYTES;
  const [mode, setMode] = useState<'pretty' | 'raw'>('pretty');
  const [notice, setNotice] = useState<string | null>(null);
  const rootRef = useRef<HTMLElement>(null);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    rootRef.current?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape' && !event.defaultPrevented) onCloseRef.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (notice === null) return;
    const timer = setTimeout(() => setNotice(null), 2500);
    return () => clearTimeout(timer);
  }, [notice]);

  const pretty = useMemo(
    () =>
      frame && frame.totalBytes <= PRETTY_MAX_BYTES
        ? prettyJson(fullText(frame), frame.totalBytes)
        : null,
    [frame],
  );
  const save = useMemo(() => saveDecision(frame, summary.held), [frame, summary.held]);
  const showPretty = pretty !== null && mode === 'pretty';
  const gap = frame ? gapBytes(frame) : 0;
  const more = frame ? nextPage(frame) : null;
  const total = frame?.totalBytes ?? summary.bytes;

  const shownText = (): string => {
    if (!frame) return '';
    if (showPretty) return pretty;
    const whole = fullText(frame);
    if (whole !== null) return whole;
    return `${frame.head.text}\n… ${formatExactBytes(gap)} not loaded …\n${frame.tail?.text ?? ''}`;
  };

  const onCopy = (): void => {
    void copyText(shownText()).then((ok) =>
      setNotice(ok ? 'Copied.' : 'Copy failed: clipboard unavailable.'),
    );
  };
  const onSave = (): void => {
    if (!save.ok) return;
    const name = `frame-${summary.seq}.${isProblemKind(summary.kind) ? 'txt' : 'json'}`;
    void saveText(save.text, frame?.sha256 ?? null, name).then(
      (problem) => setNotice(problem ?? `Saved ${name}.`),
      (cause: unknown) => setNotice(`Save failed: ${String(cause)}`),
    );
  };

  return (
    <section
      ref={rootRef}
      className="ps-frame-viewer"
      role="dialog"
      aria-label={`Frame ${summary.seq}`}
      tabIndex={-1}
      data-testid="frame-viewer"
      data-state={state}
    >
      <header className="ps-fv-header">
        <div className="ps-fv-title">
          <strong>Frame #{summary.seq}</strong>
          <span title={directionLabel(summary.dir)}>
            {directionArrow(summary.dir)} {summary.dir}
          </span>
          <span className="ps-kind" data-kind={summary.kind}>
            {summary.kind}
          </span>
          {summary.id !== undefined ? <span>id {formatId(summary.id)}</span> : null}
          {summary.method ? <span className="ps-fv-method">{summary.method}</span> : null}
          <button type="button" className="ps-fv-close" onClick={onClose} title="Close (Esc)">
            ✕
          </button>
        </div>
        <dl className="ps-fv-meta">
          <dt>size</dt>
          <dd title={formatBytes(total)}>{formatExactBytes(total)}</dd>
          <dt>sha-256</dt>
          <dd className="ps-fv-sha">{frame?.sha256 ?? '—'}</dd>
          <dt>held</dt>
          <dd>{summary.held ? 'yes' : 'no (bytes dropped)'}</dd>
          <dt>loaded</dt>
          <dd>
            {frame ? `${formatExactBytes(loadedBytes(frame))} of ${formatExactBytes(total)}` : '—'}
          </dd>
        </dl>
        {summary.problem ? <p className="ps-fv-problem">{summary.problem}</p> : null}
      </header>

      <div className="ps-fv-toolbar">
        <button
          type="button"
          disabled={pretty === null}
          onClick={() => setMode(mode === 'pretty' ? 'raw' : 'pretty')}
          title={
            pretty === null
              ? `Pretty view needs a complete JSON frame of at most ${formatBytes(PRETTY_MAX_BYTES)}`
              : 'Toggle pretty / raw'
          }
        >
          {showPretty ? 'Show raw' : 'Show pretty'}
        </button>
        <button type="button" disabled={!frame} onClick={onCopy}>
          Copy
        </button>
        <button
          type="button"
          disabled={!save.ok}
          onClick={onSave}
          title={save.ok ? 'Download the frame’s bytes' : save.reason}
        >
          Save raw bytes
        </button>
        {!save.ok && frame ? <span className="ps-fv-note">{save.reason}</span> : null}
        {notice ? (
          <span className="ps-fv-note" role="status">
            {notice}
          </span>
        ) : null}
      </div>

      {large ? <FrameNavigator totalBytes={total0} find={find} onJump={win.jump} /> : null}

      {error || win.error ? (
        <p className="ps-fv-error" role="alert">
          {error ?? win.error}
        </p>
      ) : null}

      {win.window ? (
        <div className="ps-fv-body">
          <FrameWindowView w={win.window} onJump={(at) => win.jump(at)} onClose={win.close} />
        </div>
      ) : null}

      <div className="ps-fv-body" hidden={win.window !== null}>
        {state === 'loading' ? <p className="ps-fv-note">Loading…</p> : null}
        {frame && frame.totalBytes === 0 ? <p className="ps-fv-note">(no bytes)</p> : null}
        {frame && showPretty ? <pre className="ps-fv-text">{pretty}</pre> : null}
        {frame && !showPretty ? (
          <>
            <pre className="ps-fv-text">{frame.head.text}</pre>
            {gap > 0 ? (
              <div className="ps-fv-gap">
                <span>… {formatExactBytes(gap)} not loaded …</span>
                {capReached(frame) ? (
                  <span>
                    The viewer loads at most {formatBytes(LOAD_CAP_BYTES)} of a frame; the rest
                    stays in main.
                  </span>
                ) : (
                  <button type="button" onClick={loadMore} disabled={loadingMore || !more}>
                    {loadingMore
                      ? 'Loading…'
                      : `Load more (next ${formatBytes(more?.length ?? PAGE_BYTES)})`}
                  </button>
                )}
              </div>
            ) : null}
            {frame.tail ? <pre className="ps-fv-text">{frame.tail.text}</pre> : null}
          </>
        ) : null}
      </div>
    </section>
  );
}
