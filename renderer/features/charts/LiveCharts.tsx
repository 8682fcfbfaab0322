/**
 * The three live charts of a session. They read the store narrowly and redraw at ~4 Hz
 * (throttled) on a fixed window of points, reduced to a bounded number of drawn points; no
 * animation, no dots (recharts performance guide).
 */
import './charts.css';
import { type ReactElement, useMemo } from 'react';
import { useThrottled } from '../../components/useThrottled';
import { useApp } from '../../store';
import { decimate } from './chart-data';
import { windowDomain } from './chart-format';
import { DispatcherChart } from './DispatcherChart';
import { FrameSizeChart } from './FrameSizeChart';
import { StdoutChart } from './StdoutChart';

const REDRAW_MS = 250;
/** Points drawn per line (peaks kept); the store keeps the full window. */
const MAX_LINE_POINTS = 150;
const EMPTY: never[] = [];

export function LiveCharts({ sessionId }: { sessionId: string }): ReactElement {
  const allPoints = useThrottled(
    useApp((s) => s.bySession[sessionId]?.points ?? EMPTY),
    REDRAW_MS,
  );
  const points = useMemo(() => decimate(allPoints, MAX_LINE_POINTS), [allPoints]);
  const sizes = useThrottled(
    useApp((s) => s.bySession[sessionId]?.frameSizes ?? EMPTY),
    REDRAW_MS,
  );
  const maxFrameBytes = useApp((s) => s.bySession[sessionId]?.info.maxFrameBytes ?? 0);
  const largest = points.at(-1)?.largestFrameBytes ?? 0;
  const domain = useMemo(() => windowDomain(allPoints[0]?.t, allPoints.at(-1)?.t), [allPoints]);
  return (
    <div className="charts">
      <StdoutChart points={points} domain={domain} />
      <DispatcherChart points={points} domain={domain} />
      <FrameSizeChart
        sizes={sizes}
        domain={domain}
        maxFrameBytes={maxFrameBytes}
        largest={largest}
      />
    </div>
  );
}
