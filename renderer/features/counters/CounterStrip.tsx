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
      />
      <Counter
        name="frames"
        label="frames"
        value={formatCount(m?.frames ?? 0)}
        raw={m?.frames ?? 0}
        sub={`${formatCount(m?.notifications ?? 0)} notif.`}
      />
      <Counter
        name="largest-frame"
        label="largest frame"
        value={formatBytes(m?.largestFrameBytes ?? 0)}
        raw={m?.largestFrameBytes ?? 0}
        sub={`limit ${formatBytes(info.maxFrameBytes)}`}
        tone={toneIf((m?.largestFrameBytes ?? 0) >= 1024 * 1024, 'warn')}
      />
      <Counter
        name="in-flight-frame"
        label="in-flight frame"
        value={formatBytes(m?.inFlightFrameBytes ?? 0)}
        raw={m?.inFlightFrameBytes ?? 0}
        sub={lastByte === null ? 'no byte yet' : `last byte ${formatMs(lastByte)} ago`}
        subName="last-byte"
        tone={toneIf(midFrame && (lastByte ?? 0) > info.budgets.writeBlockedMs, 'error')}
        title="Bytes received since the last newline, and time since the last stdout byte"
      />
      <Counter
        name="parse-errors"
        label="parse errors"
        value={formatCount(m?.parseErrors ?? 0)}
        raw={m?.parseErrors ?? 0}
        tone={toneIf((m?.parseErrors ?? 0) > 0, 'error')}
      />
      <Counter
        name="oversize"
        label="oversize"
        value={formatCount(m?.oversizeFrames ?? 0)}
        raw={m?.oversizeFrames ?? 0}
        sub={m?.droppedFrames ? `${formatCount(m.droppedFrames)} dropped` : info.onOversize}
        tone={toneIf((m?.oversizeFrames ?? 0) > 0 || (m?.droppedFrames ?? 0) > 0, 'error')}
      />
      <Counter
        name="dispatcher-wait"
        label="dispatcher wait"
        value={formatMs(m?.dispatcherWaitMs ?? 0)}
        raw={m?.dispatcherWaitMs ?? 0}
        sub={`longest ${formatMs(m?.dispatcherLongestWaitMs ?? 0)}`}
        subName="dispatcher-longest"
        tone={toneIf((m?.dispatcherLongestWaitMs ?? 0) > info.budgets.dispatcherWaitMs, 'warn')}
      />
      <Counter
        name="queue-depth"
        label="queue depth"
        value={formatCount(m?.dispatcherDepth ?? 0)}
        raw={m?.dispatcherDepth ?? 0}
        sub={`max ${formatCount(m?.dispatcherMaxDepth ?? 0)}`}
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
      />
      <Counter
        name="requests-in-flight"
        label="in flight"
        value={formatCount(m?.requestsInFlight ?? 0)}
        raw={m?.requestsInFlight ?? 0}
        sub="requests"
      />
      <Counter
        name="cancellations"
        label="cancels sent"
        value={formatCount(m?.cancellationsSent ?? 0)}
        raw={m?.cancellationsSent ?? 0}
      />
      <Counter
        name="late-responses"
        label="late responses"
        value={formatCount(m?.lateResponses ?? 0)}
        raw={m?.lateResponses ?? 0}
        tone={toneIf((m?.lateResponses ?? 0) > 0, 'warn')}
      />
    </>
  );
}
