/**
 * A trace's frames for the frame viewer and the payload search (engine/session/frame-search.ts):
 * one frame's recorded bytes by seq (a binary search over the frame lines: a few small reads,
 * never the whole trace), and the frames from a seq on, read line by line as the search walks.
 * Pure over a TraceReader; TraceSession owns both.
 */
import type { FrameSummary } from '../../../shared/frames.js';
import type { TraceFrameEvent } from '../../../shared/trace-format.js';
import type { SearchFrame, SearchSource } from '../session/frame-search.js';
import type { TraceReader } from './reader.js';

/** The recorded bytes of a frame event (base64 where redaction was off and it was not UTF-8). */
export function eventBytes(e: TraceFrameEvent): Buffer {
  return e.base64 !== undefined
    ? Buffer.from(e.base64, 'base64')
    : Buffer.from(e.text ?? '', 'utf8');
}

/** Index into `frameLines` of the first frame with seq ≥ `seq` (frames are in seq order). */
export async function frameIndexAtLeast(
  reader: TraceReader,
  frameLines: Uint32Array,
  seq: number,
): Promise<number> {
  let lo = 0;
  let hi = frameLines.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const meta = await reader.frameMeta(frameLines[mid]);
    // An unreadable line (a damaged trace) counts as before `seq`: the walk skips it anyway.
    if (meta === null || meta.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Frame `seq`'s event, or why there is none to show. */
export async function frameEventOf(
  reader: TraceReader,
  frameLines: Uint32Array,
  seq: number,
): Promise<TraceFrameEvent | string> {
  const k = await frameIndexAtLeast(reader, frameLines, seq);
  const meta = k < frameLines.length ? await reader.frameMeta(frameLines[k]) : null;
  if (meta === null || meta.seq !== seq) return `frame ${seq} is not in this trace`;
  if (meta.truncated)
    return `frame ${seq} was recorded without its text (over the recording budget)`;
  const e = await reader.read(frameLines[k]);
  return e?.type === 'frame' ? e : `frame ${seq} is unreadable`;
}

function summaryOf(e: TraceFrameEvent): FrameSummary {
  return {
    seq: e.seq,
    dir: e.dir,
    t: e.t,
    offset: e.offset,
    bytes: e.bytes,
    kind: e.kind,
    ...(e.id === undefined ? {} : { id: e.id }),
    ...(e.method === undefined ? {} : { method: e.method }),
    preview: '',
    held: e.truncated !== true,
  };
}

/** The trace's frames as a search walks them (a frame recorded without text has no bytes). */
export function traceSearchSource(reader: TraceReader, frameLines: Uint32Array): SearchSource {
  const seqAt = async (k: number): Promise<number> =>
    k < 0 || k >= frameLines.length ? 0 : ((await reader.frameMeta(frameLines[k]))?.seq ?? 0);
  return {
    range: async () => ({ first: await seqAt(0), last: await seqAt(frameLines.length - 1) }),
    async *from(seq: number): AsyncGenerator<SearchFrame> {
      for (let k = await frameIndexAtLeast(reader, frameLines, seq); k < frameLines.length; k++) {
        const e = await reader.read(frameLines[k]);
        if (e?.type !== 'frame') continue;
        yield { summary: summaryOf(e), data: e.truncated ? null : eventBytes(e) };
      }
    },
  };
}
