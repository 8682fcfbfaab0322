/**
 * The three live charts of a session. Each reads the store narrowly and redraws on its own
 * clock slot (useSampled): 4 Hz per chart (2 Hz while the session floods, when the machine is
 * busiest), the three phases a third of a period apart, so no task ever redraws more than one
 * chart (a recharts redraw is the most expensive thing the dashboard does). Series are a fixed
 * window reduced to a bounded number of drawn points with the peaks kept; no animation, no
 * dots (recharts performance guide).
 */
import './charts.css';
import { type ReactElement, useMemo } from 'react';
import type { SeriesPoint } from '../../../shared/session-info';
import { useSampled } from '../../components/useSampled';
import { useApp } from '../../store';
import { isFlooding } from '../../store/selectors';
import { decimate } from './chart-data';
import { sameNumbers, timeTicks, windowDomain } from './chart-format';
import { DispatcherChart } from './DispatcherChart';
import { FrameSizeChart } from './FrameSizeChart';
import { StdoutChart } from './StdoutChart';
import { useStable } from './useStable';

/** Redraw period of each chart, and while the session floods. */
const REDRAW_MS = 250;
const FLOOD_REDRAW_MS = 500;
/** Points drawn per line (peaks kept); the store keeps the full window. */
const MAX_LINE_POINTS = 150;
const EMPTY: never[] = [];

function useRedrawPeriod(sessionId: string): number {
  return useApp((s) => (isFlooding(s.bySession[sessionId]) ? FLOOD_REDRAW_MS : REDRAW_MS));
}

/** The session's series sampled on this chart's slot, with its x-domain and ticks. */
function useSeries(sessionId: string, phase: number) {
  const all = useSampled(
    useApp((s) => s.bySession[sessionId]?.points ?? (EMPTY as SeriesPoint[])),
    useRedrawPeriod(sessionId),
    phase,
  );
  const points = useMemo(() => decimate(all, MAX_LINE_POINTS), [all]);
  const domain = useStable(
    useMemo(() => windowDomain(all[0]?.t, all.at(-1)?.t), [all]),
    sameNumbers,
  );
  const xTicks = useStable(
    useMemo(() => timeTicks(domain), [domain]),
    sameNumbers,
  );
  return { points, domain, xTicks };
}

function LiveStdout({ sessionId }: { sessionId: string }): ReactElement {
  const { points, domain, xTicks } = useSeries(sessionId, 0);
  return <StdoutChart points={points} domain={domain} xTicks={xTicks} />;
}

function LiveDispatcher({ sessionId }: { sessionId: string }): ReactElement {
  const { points, domain, xTicks } = useSeries(sessionId, 1 / 3);
  return <DispatcherChart points={points} domain={domain} xTicks={xTicks} />;
}

function LiveFrameSizes({ sessionId }: { sessionId: string }): ReactElement {
  const { points, domain, xTicks } = useSeries(sessionId, 2 / 3);
  const sizes = useSampled(
    useApp((s) => s.bySession[sessionId]?.frameSizes ?? EMPTY),
    useRedrawPeriod(sessionId),
    2 / 3,
  );
  const maxFrameBytes = useApp((s) => s.bySession[sessionId]?.info.maxFrameBytes ?? 0);
  const largest = points.at(-1)?.largestFrameBytes ?? 0;
  return (
    <FrameSizeChart
      sizes={sizes}
      domain={domain}
      xTicks={xTicks}
      maxFrameBytes={maxFrameBytes}
      largest={largest}
    />
  );
}

export function LiveCharts({ sessionId }: { sessionId: string }): ReactElement {
  return (
    <div className="charts">
      <LiveStdout sessionId={sessionId} />
      <LiveDispatcher sessionId={sessionId} />
      <LiveFrameSizes sessionId={sessionId} />
    </div>
  );
}
