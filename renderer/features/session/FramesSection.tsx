/**
 * Wires the frames log (features/frames) to the store: the capped list of summaries, the
 * selected frame, and the paged viewer that fetches bytes from the host on demand (a 64 MiB
 * frame never reaches the renderer whole). While the session floods, the log redraws at
 * 10 Hz instead of with every snapshot: each batch replaces every visible row, faster than
 * anyone reads; the skipped count and the counters stay live.
 */
import { type ReactElement, useCallback } from 'react';
import type { FramePage } from '../../../shared/frames';
import type { Result } from '../../../shared/result';
import { useHost } from '../../app/host-context';
import { plural } from '../../components/format';
import { useSampled } from '../../components/useSampled';
import { appStore, useApp } from '../../store';
import { isFlooding } from '../../store/selectors';
import { FrameViewer, SessionFramesPanel, useFindInFrame, useFrameSummary } from '../frames/index';

const EMPTY: never[] = [];
/** Log redraw period while the session floods. */
const FLOOD_REDRAW_MS = 100;

export function FramesSection({ sessionId }: { sessionId: string }): ReactElement {
  const flooding = useApp((s) => isFlooding(s.bySession[sessionId]));
  const frames = useSampled(
    useApp((s) => s.bySession[sessionId]?.frames ?? EMPTY),
    flooding ? FLOOD_REDRAW_MS : 0,
  );
  const skipped = useApp((s) => s.bySession[sessionId]?.framesSkipped ?? 0);
  const selectedSeq = useApp((s) => s.selection[sessionId]?.frameSeq ?? null);
  const onOpen = useCallback(
    (seq: number) => appStore.getState().selectFrame(sessionId, seq),
    [sessionId],
  );
  return (
    <section className="log-section frames-section" data-testid="frames-section">
      <header className="panel-head">
        <h2>Frames</h2>
        <span
          className="panel-actions muted small-text"
          data-testid="frames-skipped"
          data-skipped={skipped}
        >
          {skipped > 0
            ? `${plural(skipped, 'summary', 'summaries')} not shown (list capped; counted)`
            : 'click a frame to page through its bytes'}
        </span>
      </header>
      <div className="log-body">
        <SessionFramesPanel
          sessionId={sessionId}
          frames={frames}
          onOpen={onOpen}
          selectedSeq={selectedSeq}
        />
      </div>
    </section>
  );
}

/** The viewer drawer for the selected frame (rendered above the dashboard). */
export function FrameViewerDrawer({ sessionId }: { sessionId: string }): ReactElement | null {
  const host = useHost();
  const seq = useApp((s) => s.selection[sessionId]?.frameSeq ?? null);
  // The list's summary, or a payload search's hit older than the frames the list keeps.
  const summary = useFrameSummary(sessionId, seq);
  const find = useFindInFrame(sessionId, seq);
  const fetchPage = useCallback(
    async (offset: number, length: number): Promise<Result<FramePage>> => {
      if (seq === null)
        return { ok: false, error: { code: 'ENOFRAME', message: 'no frame selected' } };
      try {
        return await host.invoke('frame:page', { sessionId, seq, offset, length });
      } catch (e) {
        return {
          ok: false,
          error: { code: 'EHOST', message: e instanceof Error ? e.message : String(e) },
        };
      }
    },
    [host, sessionId, seq],
  );
  const onClose = useCallback(() => appStore.getState().selectFrame(sessionId, null), [sessionId]);
  if (!summary) return null;
  return (
    <aside className="drawer" data-testid="frame-viewer-drawer">
      <FrameViewer
        key={summary.seq}
        summary={summary}
        fetchPage={fetchPage}
        find={find}
        onClose={onClose}
      />
    </aside>
  );
}
