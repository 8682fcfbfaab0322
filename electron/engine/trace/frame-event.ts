/**
 * Frame events of a trace: a frame summary and its bytes become one `frame` line — exact
 * text (redacted), base64 for non-UTF-8 bytes when redaction is off, or size and sha-256 when
 * the text is not kept. Pure; the recorder decides whether the text is kept (the budget).
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { JsonRpcId } from '../../../shared/requests.js';
import type { TraceFrameEvent } from '../../../shared/trace-format.js';
import type { FrameSummary } from '../session/frame-store.js';
import type { Redactor } from './redact.js';
import type { LazyLine } from './trace-sink.js';

/** What of a frame's summary its line shows (not its preview, nor whether the store holds it). */
type FrameFields = Omit<FrameSummary, 'preview' | 'held'>;

/** `data` is null when the store no longer holds the frame (its sha-256 is then unknown). */
export function frameEvent(
  f: FrameFields,
  data: Buffer | null,
  keepText: boolean,
  redactor: Redactor,
): TraceFrameEvent {
  const e: TraceFrameEvent = {
    t: f.t,
    type: 'frame',
    dir: f.dir,
    seq: f.seq,
    bytes: f.bytes,
    kind: f.kind,
    offset: f.offset,
  };
  if (f.id !== undefined) e.id = f.id;
  if (f.method !== undefined) e.method = redactor.text(f.method);
  if (f.problem !== undefined) e.problem = redactor.text(f.problem);
  if (data && keepText) {
    try {
      setText(e, data, redactor);
      return e;
    } catch {
      // Redaction failed (a pathological text): keep the secret out, write size and sha-256.
      e.text = undefined;
      e.base64 = undefined;
      e.redacted = undefined;
      e.lossy = undefined;
    }
  }
  e.truncated = true;
  e.sha256 = data ? createHash('sha256').update(data).digest('hex') : null;
  return e;
}

/** What a frame's line holds besides its text (keys, numbers, a method; escapes are more). */
const LINE_OVERHEAD_BYTES = 160;

/** Below this a Buffer copy would come from Node's pool (Buffer.poolSize / 2). */
const SMALL_FRAME_BYTES = 4096;

function ownCopy(data: Buffer): Buffer {
  const b = Buffer.allocUnsafeSlow(data.length);
  data.copy(b);
  return b;
}

/** The frame's line with its text, made when it is read (a flight recorder's ring): the line
 *  `frameEvent(f, data, true, redactor)` gives now, `t` rounded as a recorder's events are (the
 *  redactor's rules do not change during a session; its counts grow when the line is made).
 *
 *  It keeps its own copy of `data`: a small one as a one-byte string (latin1, one character a
 *  byte, exact both ways), not a Buffer. A small Buffer copy lies in Node's shared 8 KiB pool
 *  and keeps its whole slab alive, with whatever else was copied beside it and let go (a tap's
 *  observer copies each host write and host line there): the ring held over 10x what it counted.
 *  A larger one in a buffer of its own (outside the pool; the GC does not move it). And the
 *  summary's fields, not the summary: the store fills in its preview later. */
export function lazyFrameLine(f: FrameSummary, data: Buffer, redactor: Redactor): LazyLine {
  const fields = {
    seq: f.seq,
    dir: f.dir,
    t: f.t,
    offset: f.offset,
    bytes: f.bytes,
    kind: f.kind,
    id: f.id,
    method: f.method,
    problem: f.problem,
  };
  const copy = data.length < SMALL_FRAME_BYTES ? data.toString('latin1') : ownCopy(data);
  return {
    bytes: data.length + LINE_OVERHEAD_BYTES,
    render: () => {
      const bytes = typeof copy === 'string' ? Buffer.from(copy, 'latin1') : copy;
      const e = frameEvent(fields, bytes, true, redactor);
      e.t = Math.round(e.t * 1000) / 1000;
      return `${JSON.stringify(e)}\n`;
    },
  };
}

function setText(e: TraceFrameEvent, data: Buffer, redactor: Redactor): void {
  const utf8 = isUtf8(data);
  if (!utf8 && !redactor.enabled) {
    e.base64 = data.toString('base64');
    return;
  }
  // A non-UTF-8 frame could hide a secret in its raw bytes: with redaction on it is written
  // as a lossy decoding, redacted, and marked.
  if (!utf8) e.lossy = true;
  const raw = data.toString('utf8');
  const text = redactor.text(raw);
  if (text !== raw) e.redacted = true;
  e.text = text;
}

/** The target and reason of a notifications/cancelled we sent (null if it has none). */
export function cancellationOf(data: Buffer): { id: JsonRpcId; reason: string } | null {
  try {
    const msg = JSON.parse(data.toString('utf8')) as {
      params?: { requestId?: JsonRpcId; reason?: string };
    };
    const id = msg.params?.requestId;
    if (id === undefined) return null;
    return { id, reason: typeof msg.params?.reason === 'string' ? msg.params.reason : '' };
  } catch {
    return null;
  }
}
