/**
 * One request's exchange for the detail pane and the composer's answer: its record (from the
 * store), where its request and response lines are (exchange.ts) and their text (useFrameText,
 * fetched from the host's frame store, bounded). Subscribes to primitives only, so a snapshot
 * that changes nothing of this request re-renders nothing.
 */
import type { FrameSummary } from '../../../shared/frames';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests';
import { useApp } from '../../store';
import { findFrame, requestSeqOf, responseSeqOf } from './exchange';
import { type FrameText, useFrameText } from './useFrameText';

const EMPTY: FrameSummary[] = [];

export interface Exchange {
  record: RequestRecord | undefined;
  requestSeq: number | null;
  responseSeq: number | null;
  request: FrameText;
  response: FrameText;
}

export function useRecord(sessionId: string, id: JsonRpcId | null): RequestRecord | undefined {
  return useApp((s) => (id === null ? undefined : s.bySession[sessionId]?.requests.get(id)));
}

/** Where the record's line is: a number, so that a snapshot leaving it alone re-renders nothing
 *  (only a record without seqs, from an older trace, searches the frames log). */
function useSeq(
  sessionId: string,
  record: RequestRecord | undefined,
  of: typeof requestSeqOf,
): number | null {
  return useApp((s) => (record ? of(record, s.bySession[sessionId]?.frames ?? EMPTY) : null));
}

/** `held` of frame `seq` as its summary says (undefined: no summary in the log). */
function useHeld(sessionId: string, seq: number | null): boolean | undefined {
  return useApp((s) => {
    if (seq === null) return undefined;
    return findFrame(s.bySession[sessionId]?.frames ?? EMPTY, seq)?.held;
  });
}

/** `withRequest`: also load the request line (the composer only shows the answer). */
export function useExchange(sessionId: string, id: JsonRpcId | null, withRequest = true): Exchange {
  const record = useRecord(sessionId, id);
  const requestSeq = useSeq(sessionId, record, requestSeqOf);
  const responseSeq = useSeq(sessionId, record, responseSeqOf);
  const wantedRequest = withRequest ? requestSeq : null;
  const request = useFrameText(
    sessionId,
    wantedRequest,
    record?.requestBytes ?? null,
    useHeld(sessionId, wantedRequest),
  );
  const response = useFrameText(
    sessionId,
    responseSeq,
    record?.responseBytes ?? null,
    useHeld(sessionId, responseSeq),
  );
  return { record, requestSeq, responseSeq, request, response };
}
