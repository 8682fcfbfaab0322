/** Request records: the public request states of DESIGN.md plus what a live view needs. */
import type { ResultAudit } from './result-audit.js';

export const REQUEST_STATUSES = [
  'pending',
  'completed',
  'failed',
  'cancelled',
  'late',
  'timed-out',
] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export type JsonRpcId = string | number;

export interface RequestRecord {
  id: JsonRpcId;
  method: string;
  status: RequestStatus;
  /** ms since session start. */
  sentAt: number;
  /** ms from send to response (null while pending or when no response came). */
  latencyMs: number | null;
  /** Bytes of the response line (without newline), null when none arrived. */
  responseBytes: number | null;
  requestBytes: number;
  /** Set when a cancellation was sent for this request. */
  cancelledAt: number | null;
  cancelReason: string | null;
  /** JSON-RPC error of a failed request. */
  error: { code: number; message: string } | null;
  /** The progress token we attached, if any. */
  progressToken: string | number | null;
  progressCount: number;
  lastProgress: number | null;
  /** Id of the request this one replays. */
  replayOf: JsonRpcId | null;
  /** Tapped sessions: ms from the answer's first byte reaching the tap to the host's pipe
   *  taking its last (large answers only; how long the host took to read it). */
  hostReadMs?: number;
  /** Frame store seqs of the request line and of its response line (when they were seen). */
  requestSeq?: number;
  responseSeq?: number;
  /** The result audit of a tools/call, resources/read or prompts/get answer. */
  audit?: ResultAudit;
}

/** The record of a request just sent: pending, nothing heard back yet. */
export function sentRecord(
  sent: Pick<RequestRecord, 'id' | 'method' | 'sentAt' | 'requestBytes'> &
    Partial<Pick<RequestRecord, 'progressToken' | 'replayOf'>>,
): RequestRecord {
  return {
    id: sent.id,
    method: sent.method,
    status: 'pending',
    sentAt: sent.sentAt,
    latencyMs: null,
    responseBytes: null,
    requestBytes: sent.requestBytes,
    cancelledAt: null,
    cancelReason: null,
    error: null,
    progressToken: sent.progressToken ?? null,
    progressCount: 0,
    lastProgress: null,
    replayOf: sent.replayOf ?? null,
  };
}

/** One request as the `probe --json` report lists it. */
export interface ReportRequest {
  id: JsonRpcId;
  method: string;
  status: RequestStatus;
  latencyMs: number | null;
  responseBytes: number | null;
  /** A failed request's error: JSON-RPC's, or the host's (DESIGN.md). */
  error?: { code: number; message: string };
  /** Tapped sessions, large answers: ms the host took to read it (RequestRecord.hostReadMs). */
  hostReadMs?: number;
  /** The result audit (audited methods' answers only: RequestRecord.audit). */
  audit?: ResultAudit;
}
