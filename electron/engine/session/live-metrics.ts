/**
 * Session metrics: folds the worker's counters and main's own counts into the LiveMetrics of
 * shared/metrics.ts, and keeps the short history behind the rates.
 *
 * Owns: the rate window and the maxima seen by main. Fed by: the Session on each tick and batch.
 */
import { emptyLiveMetrics, type LiveMetrics } from '../../../shared/metrics.js';
import type { WorkerCounters } from '../../wire/protocol.js';

const RATE_WINDOW_MS = 1000;

export interface MainCounts {
  t: number;
  mainQueueDepth: number;
  /** How long the oldest message still queued for the consumer has waited (0: none queued). */
  queueWaitMs: number;
  /** The longest wait of a message the consumer took. */
  queueLongestWaitMs: number;
  cancellationsSent: number;
  lateResponses: number;
  processExits: number;
  requestsInFlight: number;
  notifications: number;
  stderrDroppedBytes: number;
}

export class SessionMetrics {
  private samples: { t: number; out: number; err: number }[] = [];
  maxDepth = 0;
  private current: LiveMetrics = emptyLiveMetrics();

  update(c: WorkerCounters | null, m: MainCounts): LiveMetrics {
    const x = emptyLiveMetrics();
    if (c) {
      x.stdoutBytes = c.stdoutBytes;
      x.stderrBytes = c.stderrBytes;
      x.frames = c.frames;
      x.largestFrameBytes = c.largestFrameBytes;
      x.parseErrors = c.parseErrors;
      x.oversizeFrames = c.oversizeFrames;
      x.partialBytesAtEof = c.partialBytesAtEof;
      x.dispatcherWaitMs = round(c.dispatcherWaitMs);
      x.dispatcherLongestWaitMs = round(c.dispatcherLongestWaitMs);
      x.stdinBytes = c.stdinBytes;
      x.stdinWaitMs = round(c.stdinWaitMs);
      x.inFlightFrameBytes = c.pendingBytes;
      x.msSinceLastStdoutByte =
        c.lastStdoutByteAt === null ? null : round(Math.max(0, m.t - c.lastStdoutByteAt));
      x.spillBytes = c.spillBytes;
      x.droppedFrames = c.droppedFrames;
      x.droppedBytes = c.droppedBytes;
      x.readingStdout = c.readingStdout;
      x.stdinPendingBytes = c.stdinPendingBytes;
      x.stdinPendingWaitMs =
        c.stdinPendingSince === null ? 0 : round(Math.max(0, m.t - c.stdinPendingSince));
      this.maxDepth = Math.max(this.maxDepth, c.maxSpillFrames);
    }
    x.dispatcherDepth = m.mainQueueDepth + (c?.spillFrames ?? 0);
    this.maxDepth = Math.max(this.maxDepth, x.dispatcherDepth);
    x.dispatcherMaxDepth = this.maxDepth;
    x.queueWaitMs = round(m.queueWaitMs);
    x.queueLongestWaitMs = round(Math.max(m.queueLongestWaitMs, m.queueWaitMs));
    x.cancellationsSent = m.cancellationsSent;
    x.lateResponses = m.lateResponses;
    x.processExits = m.processExits;
    x.requestsInFlight = m.requestsInFlight;
    x.notifications = m.notifications;
    x.stderrDroppedBytes = m.stderrDroppedBytes;
    x.elapsedMs = round(m.t);
    this.samples.push({ t: m.t, out: x.stdoutBytes, err: x.stderrBytes });
    while (this.samples.length > 2 && this.samples[0].t < m.t - RATE_WINDOW_MS)
      this.samples.shift();
    const first = this.samples[0];
    const span = (m.t - first.t) / 1000;
    x.stdoutRate = span > 0 ? Math.round((x.stdoutBytes - first.out) / span) : 0;
    x.stderrRate = span > 0 ? Math.round((x.stderrBytes - first.err) / span) : 0;
    this.current = x;
    return x;
  }

  get latest(): LiveMetrics {
    return this.current;
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
