/**
 * Session metrics: the numbers every host shows live and every report prints.
 * Field names of `ReportMetrics` are the public `probe --json` contract (DESIGN.md).
 * Pure data, no DOM, no Node.
 */

/** The metrics block of the `probe --json` report, exactly as DESIGN.md lists it. */
export interface ReportMetrics {
  stdoutBytes: number;
  stderrBytes: number;
  frames: number;
  largestFrameBytes: number;
  parseErrors: number;
  oversizeFrames: number;
  partialBytesAtEof: number;
  dispatcherWaitMs: number;
  dispatcherMaxDepth: number;
  stdinBytes: number;
  stdinWaitMs: number;
  cancellationsSent: number;
  lateResponses: number;
  processExits: number;
}

/** Everything a live view needs: the report metrics plus rates, gauges and drop counters. */
export interface LiveMetrics extends ReportMetrics {
  /** Wall-clock ms since the session started. */
  elapsedMs: number;
  /** stdout bytes per second over the last sampling window. */
  stdoutRate: number;
  stderrRate: number;
  /** Bytes received since the last newline (a frame being written right now). */
  inFlightFrameBytes: number;
  /** ms since the last stdout byte arrived (null before the first byte). */
  msSinceLastStdoutByte: number | null;
  /** Longest single wait of the worker's reader for dispatcher credits (it waits only once
   *  its spill is full; dispatcherWaitMs is the total). */
  dispatcherLongestWaitMs: number;
  /** Queue wait now: how long the oldest complete message still queued for the consumer has
   *  waited since it arrived (0 when none waits). What host-queue-stalled measures. */
  queueWaitMs: number;
  /** The longest queue wait so far (a message taken, or the oldest still waiting). */
  queueLongestWaitMs: number;
  /** Frames complete but not yet consumed (worker spill + hand-off + main queue). */
  dispatcherDepth: number;
  /** Bytes held in the worker's spill while out of credits. */
  spillBytes: number;
  /** Frames dropped by the overload policy (counted, never silent). */
  droppedFrames: number;
  droppedBytes: number;
  /** Whether the worker is currently reading stdout. */
  readingStdout: boolean;
  /** Current longest wait of a pending stdin write ('drain' not yet seen), ms. */
  stdinPendingWaitMs: number;
  stdinPendingBytes: number;
  requestsInFlight: number;
  /** Notifications received from the server (progress, logging, other). */
  notifications: number;
  /** stderr bytes not kept: the oldest, dropped while the host was behind or from the bounded
   *  ring (they were still counted in stderrBytes). */
  stderrDroppedBytes: number;
}

export function emptyLiveMetrics(): LiveMetrics {
  return {
    stdoutBytes: 0,
    stderrBytes: 0,
    frames: 0,
    largestFrameBytes: 0,
    parseErrors: 0,
    oversizeFrames: 0,
    partialBytesAtEof: 0,
    dispatcherWaitMs: 0,
    dispatcherMaxDepth: 0,
    stdinBytes: 0,
    stdinWaitMs: 0,
    cancellationsSent: 0,
    lateResponses: 0,
    processExits: 0,
    elapsedMs: 0,
    stdoutRate: 0,
    stderrRate: 0,
    inFlightFrameBytes: 0,
    msSinceLastStdoutByte: null,
    dispatcherLongestWaitMs: 0,
    queueWaitMs: 0,
    queueLongestWaitMs: 0,
    dispatcherDepth: 0,
    spillBytes: 0,
    droppedFrames: 0,
    droppedBytes: 0,
    readingStdout: false,
    stdinPendingWaitMs: 0,
    stdinPendingBytes: 0,
    requestsInFlight: 0,
    notifications: 0,
    stderrDroppedBytes: 0,
  };
}

const REPORT_METRIC_KEYS = [
  'stdoutBytes',
  'stderrBytes',
  'frames',
  'largestFrameBytes',
  'parseErrors',
  'oversizeFrames',
  'partialBytesAtEof',
  'dispatcherWaitMs',
  'dispatcherMaxDepth',
  'stdinBytes',
  'stdinWaitMs',
  'cancellationsSent',
  'lateResponses',
  'processExits',
] as const satisfies readonly (keyof ReportMetrics)[];

/** Picks exactly the public report fields, in the documented order. */
export function toReportMetrics(m: ReportMetrics): ReportMetrics {
  const out = {} as Record<keyof ReportMetrics, number>;
  for (const key of REPORT_METRIC_KEYS) out[key] = m[key];
  return out;
}
