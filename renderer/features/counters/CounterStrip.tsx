/**
 * The counter strip: every live metric of DESIGN.md "Metrics per session" in one row of fixed
 * cells. Subscribes to the session's metrics and info only.
 */
import type { ReactElement } from 'react';
import type { LiveMetrics } from '../../../shared/metrics';
import type { SessionInfo } from '../../../shared/session-info';
import { formatBytes, formatCount, formatMs, formatRate } from '../../components/format';
import { useApp } from '../../store';
import { Counter, type Tone } from './Counter';
import { ProcessCounter } from './ProcessCounter';

/** What each counter measures (its tooltip): the words a newcomer needs to read the strip. */
const TIPS = {
  stdout:
    "Bytes the server wrote to stdout (the JSON-RPC stream), and their rate over the last second. 'not reading': the host has stopped reading the pipe (reader paused or naive), so the server will block in write() once 64 KiB wait.",
  stderr:
    "Bytes the server wrote to stderr (its logs), and their rate; 'dropped': the oldest logs let go to stay within the bounded ring (still counted).",
  frames:
    'Complete lines read from stdout (messages, pollution, empty lines), and how many were notifications.',
  largest:
    'The largest complete frame so far, against the transport limit (maxFrameBytes): a line over the limit is discarded before it is parsed. Amber from 1 MiB, which some hosts refuse.',
  inFlight:
    'Bytes received since the last newline (a frame being written right now), and the time since the last stdout byte. Red: a frame stopped mid-way past the write-blocked budget.',
  parseErrors:
    'Lines on stdout that are not JSON (banners, console.log, garbage): stdout pollution.',
  oversize:
    "Frames over the transport limit (discarded, or the session ended, per the oversize policy); 'dropped': frames the overload policy dropped because the host fell too far behind.",
  queueWait: (m: LiveMetrics | null, budgetMs: number): string =>
    `Queue wait: how long a complete message waited between its last byte arriving and the consumer taking it (the host's own queue, the one host-queue-stalled watches; budget ${formatMs(budgetMs)}). The value is the longest so far; "now" is the oldest message waiting now. "reader": the total time the worker's stdout reader waited for credits (the report's dispatcherWaitMs; longest single wait ${formatMs(m?.dispatcherLongestWaitMs ?? 0)}): it waits only once its bounded spill is full, so it stays low while the queue wait grows.`,
  observerQueue:
    "A tapped session: the host's own queue cannot be seen from the tap, so this is Pipescope's observer's, how long a message waited before the observer took it. It runs at a lower priority than the host and the server and falls behind on a busy machine without slowing either; nothing here is the host's.",
  queueDepth: (budget: number): string =>
    `Complete messages waiting for the consumer now (worker spill + hand-off + main queue), and the most at once. Amber over ${formatCount(budget)}.`,
  stdinWait:
    "Total time the host's writes to the server's stdin waited for the pipe to drain (the server not reading its input), and bytes waiting now or sent so far.",
  inFlightRequests: 'Requests sent and not answered yet (pending).',
  cancels: 'notifications/cancelled sent to the server (by a person, a timeout or a probe).',
  late: 'Answers that arrived after their request was cancelled: shown as late, never errors.',
};

function toneIf(condition: boolean, tone: Tone): Tone {
  return condition ? tone : 'normal';
}

export function CounterStrip({ sessionId }: { sessionId: string }): ReactElement | null {
  const metrics = useApp((s) => s.bySession[sessionId]?.metrics ?? null);
  const info = useApp((s) => s.bySession[sessionId]?.info);
  if (!info) return null;
  return (
    <div className="counter-strip" data-testid="counters">
      <MetricCounters m={metrics} info={info} />
      <ProcessCounter info={info} />
    </div>
  );
}

function MetricCounters({ m, info }: { m: LiveMetrics | null; info: SessionInfo }): ReactElement {
  const lastByte = m?.msSinceLastStdoutByte ?? null;
  // A tapped session's queue is Pipescope's observer's (TIPS.observerQueue), never the host's.
  const observer = info.tap != null;
  const midFrame = (m?.inFlightFrameBytes ?? 0) > 0;
  return (
    <>
      <Counter
        name="stdout"
        label="stdout"
        value={formatBytes(m?.stdoutBytes ?? 0)}
        raw={m?.stdoutBytes ?? 0}
        sub={`${formatRate(m?.stdoutRate ?? 0)}${m && !m.readingStdout && info.state === 'running' ? ' · not reading' : ''}`}
        subName="stdout-rate"
        tone={toneIf(m !== null && !m.readingStdout && info.state === 'running', 'warn')}
        title={TIPS.stdout}
      />
      <Counter
        name="stderr"
        label="stderr"
        value={formatBytes(m?.stderrBytes ?? 0)}
        raw={m?.stderrBytes ?? 0}
        sub={
          m?.stderrDroppedBytes
            ? `${formatBytes(m.stderrDroppedBytes)} dropped`
            : formatRate(m?.stderrRate ?? 0)
        }
        title={TIPS.stderr}
      />
      <Counter
        name="frames"
        label="frames"
        value={formatCount(m?.frames ?? 0)}
        raw={m?.frames ?? 0}
        sub={`${formatCount(m?.notifications ?? 0)} notif.`}
        title={TIPS.frames}
      />
      <Counter
        name="largest-frame"
        label="largest frame"
        value={formatBytes(m?.largestFrameBytes ?? 0)}
        raw={m?.largestFrameBytes ?? 0}
        sub={`limit ${formatBytes(info.maxFrameBytes)}`}
        tone={toneIf((m?.largestFrameBytes ?? 0) >= 1024 * 1024, 'warn')}
        title={TIPS.largest}
      />
      <Counter
        name="in-flight-frame"
        label="in-flight frame"
        value={formatBytes(m?.inFlightFrameBytes ?? 0)}
        raw={m?.inFlightFrameBytes ?? 0}
        sub={lastByte === null ? 'no byte yet' : `last byte ${formatMs(lastByte)} ago`}
        subName="last-byte"
        tone={toneIf(midFrame && (lastByte ?? 0) > info.budgets.writeBlockedMs, 'error')}
        title={TIPS.inFlight}
      />
      <Counter
        name="parse-errors"
        label="parse errors"
        value={formatCount(m?.parseErrors ?? 0)}
        raw={m?.parseErrors ?? 0}
        tone={toneIf((m?.parseErrors ?? 0) > 0, 'error')}
        title={TIPS.parseErrors}
      />
      <Counter
        name="oversize"
        label="oversize"
        value={formatCount(m?.oversizeFrames ?? 0)}
        raw={m?.oversizeFrames ?? 0}
        sub={m?.droppedFrames ? `${formatCount(m.droppedFrames)} dropped` : info.onOversize}
        tone={toneIf((m?.oversizeFrames ?? 0) > 0 || (m?.droppedFrames ?? 0) > 0, 'error')}
        title={TIPS.oversize}
      />
      <Counter
        name="queue-wait"
        label={observer ? 'observer wait' : 'queue wait'}
        value={formatMs(m?.queueLongestWaitMs ?? 0)}
        raw={m?.queueLongestWaitMs ?? 0}
        sub={`now ${formatMs(m?.queueWaitMs ?? 0)} · reader ${formatMs(m?.dispatcherWaitMs ?? 0)}`}
        subName="queue-wait-now"
        tone={toneIf(
          !observer &&
            ((m?.queueLongestWaitMs ?? 0) > info.budgets.dispatcherWaitMs ||
              (m?.dispatcherLongestWaitMs ?? 0) > info.budgets.dispatcherWaitMs),
          'warn',
        )}
        title={observer ? TIPS.observerQueue : TIPS.queueWait(m, info.budgets.dispatcherWaitMs)}
      />
      <Counter
        name="queue-depth"
        label={observer ? 'observer queue' : 'queue depth'}
        value={formatCount(m?.dispatcherDepth ?? 0)}
        raw={m?.dispatcherDepth ?? 0}
        sub={`max ${formatCount(m?.dispatcherMaxDepth ?? 0)}`}
        tone={toneIf(!observer && (m?.dispatcherDepth ?? 0) > info.budgets.dispatcherDepth, 'warn')}
        title={observer ? TIPS.observerQueue : TIPS.queueDepth(info.budgets.dispatcherDepth)}
      />
      <Counter
        name="stdin-wait"
        label="stdin wait"
        value={formatMs(m?.stdinWaitMs ?? 0)}
        raw={m?.stdinWaitMs ?? 0}
        sub={
          m?.stdinPendingBytes
            ? `${formatBytes(m.stdinPendingBytes)} pending`
            : `${formatBytes(m?.stdinBytes ?? 0)} sent`
        }
        tone={toneIf((m?.stdinPendingWaitMs ?? 0) > info.budgets.stdinWaitMs, 'error')}
        title={TIPS.stdinWait}
      />
      <Counter
        name="requests-in-flight"
        label="in flight"
        value={formatCount(m?.requestsInFlight ?? 0)}
        raw={m?.requestsInFlight ?? 0}
        sub="requests"
        title={TIPS.inFlightRequests}
      />
      <Counter
        name="cancellations"
        label="cancels sent"
        value={formatCount(m?.cancellationsSent ?? 0)}
        raw={m?.cancellationsSent ?? 0}
        title={TIPS.cancels}
      />
      <Counter
        name="late-responses"
        label="late responses"
        value={formatCount(m?.lateResponses ?? 0)}
        raw={m?.lateResponses ?? 0}
        tone={toneIf((m?.lateResponses ?? 0) > 0, 'warn')}
        title={TIPS.late}
      />
    </>
  );
}
