/**
 * Seeking a trace session: the scrubber's position is local (it moves at once while dragging);
 * the host is asked through a SeekCoalescer (one `trace:seek` in flight, the latest position
 * wins). The answer's snapshot is ingested like a pushed one (duplicates are dropped by seq).
 */
import { useEffect, useMemo, useRef } from 'react';
import { useHost } from '../../app/host-context';
import { appStore } from '../../store';
import { SeekCoalescer } from './scrubber';

export function useTraceSeek(traceId: string): SeekCoalescer {
  const host = useHost();
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  return useMemo(
    () =>
      new SeekCoalescer(async (t) => {
        const r = await host.invoke('trace:seek', { traceId, t });
        if (!live.current) return;
        if (r.ok) appStore.getState().ingest({ type: 'snapshot', snapshot: r.value.snapshot });
        else appStore.getState().notify(`trace:seek: ${r.error.message}`);
      }),
    [host, traceId],
  );
}
