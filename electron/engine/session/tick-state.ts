/**
 * TickState: what the time-based rules look at, taken on each tick from the worker's latest
 * counters and the session's own state. Pure.
 */
import type { FindingEvidence } from '../../../shared/process.js';
import type { ReaderMode } from '../../../shared/session-options.js';
import type { WorkerCounters } from '../../wire/protocol.js';

/** What the time-based rules look at, sampled on each tick. */
export interface TickState {
  t: number;
  alive: boolean;
  stdoutEnded: boolean;
  readerMode: ReaderMode;
  readingStdout: boolean;
  notReadingSince: number | null;
  pendingBytes: number;
  lastStdoutByteAt: number | null;
  responsesOwed: number;
  dispatcherLongestWaitMs: number;
  dispatcherDepth: number;
  /** Age of the oldest complete message not yet taken by the consumer (ms). */
  queueOldestAgeMs: number;
  stdinPendingSince: number | null;
  stdinPendingBytes: number;
  /** A tapped session: "not reading" is the host's (the relay reads as the host drains). */
  tapped?: boolean;
  /** Tapped: bytes the tap wrote towards the host that its pipe has not taken. */
  hostPendingBytes?: number;
  /** Tapped: when the host last took bytes again after not reading (the relay's own time). */
  hostResumedAt?: number | null;
  /** Tapped: when the relay last read the server's stdout, before its copies reach us. */
  serverReadAt?: number | null;
  /** Tapped: the time of the relay's latest state, what its times above vouch for (the native
   *  relay may hold its states back with a burst's copies, up to 250 ms). */
  relayStateAt?: number | null;
  /** The process evidence behind a blocked write (process-findings.ts), when it was seen. */
  writeProof?: WriteProof | null;
}

/** What the server's process showed about its stdout: in write() for `blockedMs`, or idle with
 *  its output held in memory (a non-blocking stdout); `text` says so in words. */
export interface WriteProof {
  text: string;
  /** ms the server has sat in one write() to stdout (0 when it is not in one). */
  blockedMs: number;
  /** When the process was sampled (`blockedMs` is as of then; absent: now). */
  at?: number;
  evidence: FindingEvidence;
}

/** The session's side of a tick state (the worker's side is its counters). */
export interface SessionSide {
  t: number;
  alive: boolean;
  readerMode: ReaderMode;
  responsesOwed: number;
  dispatcherDepth: number;
  /** When the oldest message still queued for the consumer arrived (null: none queued). */
  oldestQueuedAt: number | null;
  tapped?: boolean;
}

export function tickStateOf(c: WorkerCounters | null, s: SessionSide): TickState {
  return {
    t: s.t,
    alive: s.alive,
    stdoutEnded: c?.stdoutEnded ?? false,
    readerMode: s.readerMode,
    readingStdout: c?.readingStdout ?? false,
    notReadingSince: c?.notReadingSince ?? null,
    pendingBytes: c?.pendingBytes ?? 0,
    lastStdoutByteAt: c?.lastStdoutByteAt ?? null,
    responsesOwed: s.responsesOwed,
    dispatcherLongestWaitMs: c?.dispatcherLongestWaitMs ?? 0,
    dispatcherDepth: s.dispatcherDepth,
    queueOldestAgeMs: s.oldestQueuedAt === null ? 0 : s.t - s.oldestQueuedAt,
    stdinPendingSince: c?.stdinPendingSince ?? null,
    stdinPendingBytes: c?.stdinPendingBytes ?? 0,
    tapped: s.tapped === true,
    hostPendingBytes: c?.hostPendingBytes ?? 0,
    hostResumedAt: c?.hostResumedAt ?? null,
    serverReadAt: c?.serverReadAt ?? null,
    relayStateAt: c?.relayStateAt ?? null,
  };
}
