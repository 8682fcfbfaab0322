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

/** `data` is null when the store no longer holds the frame (its sha-256 is then unknown). */
export function frameEvent(
  f: FrameSummary,
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
