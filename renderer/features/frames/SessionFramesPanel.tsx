/**
 * A session's frames panel: FramesPanel wired to the host's payload search (usePayloadSearch)
 * and to the list's view (Clear, Preserve log: features/log/log-view.ts). Also the lookups the
 * frame viewer's drawer needs: a frame's summary (the list's, or a search hit older than the
 * frames the list keeps) and "find in frame" on the host.
 */
import { type ReactElement, useCallback, useMemo, useState } from 'react';
import type { FrameFindPage, FrameSummary } from '../../../shared/frames';
import type { HostApi } from '../../../shared/host-api';
import type { Result } from '../../../shared/result';
import { useHost } from '../../app/host-context';
import { useApp } from '../../store';
import { framesFloor, updateLogView, useLogView } from '../log/log-view';
import type { FindInFrame } from './FrameNavigator';
import { FramesPanel } from './FramesPanel';
import { type PayloadQuery, searchedFrame, usePayloadSearch } from './usePayloadSearch';

export function SessionFramesPanel({
  sessionId,
  frames,
  onOpen,
  selectedSeq,
}: {
  sessionId: string;
  frames: readonly FrameSummary[];
  onOpen(seq: number): void;
  selectedSeq: number | null;
}): ReactElement {
  const host = useHost();
  const [query, setQuery] = useState<PayloadQuery | null>(null);
  const state = usePayloadSearch(host, sessionId, query);
  const view = useLogView(sessionId);
  const floor = useMemo(() => framesFloor(view, frames), [view, frames]);
  const newest = frames.at(-1)?.seq ?? 0;
  const search = useMemo(() => ({ state, setQuery }), [state]);
  const controls = useMemo(
    () => ({
      floor,
      preserve: view.preserve,
      onClear: () => updateLogView(sessionId, { framesFrom: newest + 1 }),
      // What hid the frames: Clear, or a new initialize without Preserve log.
      onShowAll: () => updateLogView(sessionId, { framesFrom: 0, preserve: true }),
      onPreserve: (preserve: boolean) => updateLogView(sessionId, { preserve }),
    }),
    [floor, view.preserve, sessionId, newest],
  );
  return (
    <FramesPanel
      frames={frames}
      onOpen={onOpen}
      selectedSeq={selectedSeq}
      search={search}
      view={controls}
    />
  );
}

/** Frame `seq` of the session: from the list, else from its latest payload search. */
export function useFrameSummary(sessionId: string, seq: number | null): FrameSummary | undefined {
  const listed = useApp((s) =>
    seq === null ? undefined : s.bySession[sessionId]?.frames.find((f) => f.seq === seq),
  );
  return listed ?? (seq === null ? undefined : searchedFrame(sessionId, seq));
}

/** "Find in frame" for frame `seq` of the session, on the host. */
export function useFindInFrame(sessionId: string, seq: number | null): FindInFrame {
  const host = useHost();
  return useCallback(
    (query, caseSensitive, from) => findOn(host, sessionId, seq, query, caseSensitive, from),
    [host, sessionId, seq],
  );
}

async function findOn(
  host: HostApi,
  sessionId: string,
  seq: number | null,
  query: string,
  caseSensitive: boolean,
  from: number,
): Promise<Result<FrameFindPage>> {
  if (seq === null) return { ok: false, error: { code: 'ENOFRAME', message: 'no frame selected' } };
  try {
    return await host.invoke('frame:find', { sessionId, seq, query, caseSensitive, from });
  } catch (e) {
    return {
      ok: false,
      error: { code: 'EHOST', message: e instanceof Error ? e.message : String(e) },
    };
  }
}
