/**
 * Dispatcher queue depth (left axis) and cumulative dispatcher wait (right axis). Pure and
 * memoized like StdoutChart: both y-axes are fixed by us so their props stay stable.
 */
import { memo, type ReactElement, useMemo } from 'react';
import { CartesianGrid, LineChart, ResponsiveContainer } from 'recharts';
import type { SeriesPoint } from '../../../shared/session-info';
import { formatCount, formatMs } from '../../components/format';
import { ChartFrame } from './ChartFrame';
import { sameScale, tickCount, tickMs, yScale } from './chart-format';
import { GRID_STROKE, MARGIN_FLUSH, type TimeWindow, Y_TICKS } from './chart-props';
import { seriesLine, valueAxis } from './series';
import { timeAxis } from './time-axis';
import { useStable } from './useStable';

const DEPTH = 'var(--ps-chart-2)';
const WAIT = 'var(--ps-chart-4)';

export const DispatcherChart = memo(function DispatcherChart({
  points,
  domain,
  xTicks,
}: TimeWindow & { points: SeriesPoint[] }): ReactElement {
  const last = points.at(-1);
  const computed = useMemo(() => {
    let depth = 0;
    let wait = 0;
    for (const p of points) {
      depth = Math.max(depth, p.dispatcherDepth);
      wait = Math.max(wait, p.dispatcherWaitMs);
    }
    return {
      depth: yScale(depth, Y_TICKS, 'integer', 1),
      wait: yScale(wait, Y_TICKS, 'decimal', 10),
    };
  }, [points]);
  const depthY = useStable(computed.depth, sameScale);
  const waitY = useStable(computed.wait, sameScale);
  return (
    <ChartFrame
      title="Dispatcher"
      unit="depth · wait"
      testId="chart-dispatcher"
      legend={[
        { label: 'queue depth', color: DEPTH, value: formatCount(last?.dispatcherDepth ?? 0) },
        { label: 'wait (total)', color: WAIT, value: formatMs(last?.dispatcherWaitMs ?? 0) },
      ]}
    >
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={MARGIN_FLUSH}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} yAxisId="depth" />
          {timeAxis(domain, xTicks)}
          {valueAxis(depthY, tickCount, 40, { id: 'depth' })}
          {valueAxis(waitY, tickMs, 50, { id: 'wait', right: true })}
          {seriesLine('dispatcherDepth', DEPTH, { width: 1.5, type: 'stepAfter', axis: 'depth' })}
          {seriesLine('dispatcherWaitMs', WAIT, { width: 1, axis: 'wait' })}
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
