/**
 * stdout and stderr bytes per second over the window. Pure and memoized: LiveCharts hands it a
 * sampled, decimated series; both axes are fixed by us (stable props, no nice-tick search).
 */
import { memo, type ReactElement, useMemo } from 'react';
import { CartesianGrid, LineChart, ResponsiveContainer } from 'recharts';
import type { SeriesPoint } from '../../../shared/session-info';
import { formatRate } from '../../components/format';
import { ChartFrame } from './ChartFrame';
import { sameScale, tickBytes, yScale } from './chart-format';
import { GRID_STROKE, MARGIN_RIGHT_PAD, type TimeWindow, Y_TICKS } from './chart-props';
import { seriesLine, valueAxis } from './series';
import { timeAxis } from './time-axis';
import { useStable } from './useStable';

const STDOUT = 'var(--ps-chart-1)';
const STDERR = 'var(--ps-chart-3)';

export const StdoutChart = memo(function StdoutChart({
  points,
  domain,
  xTicks,
}: TimeWindow & { points: SeriesPoint[] }): ReactElement {
  const last = points.at(-1);
  const computed = useMemo(() => {
    let max = 0;
    for (const p of points) max = Math.max(max, p.stdoutRate, p.stderrRate);
    return yScale(max, Y_TICKS, 'bytes', 1024);
  }, [points]);
  const y = useStable(computed, sameScale);
  return (
    <ChartFrame
      title="Throughput"
      unit="bytes / s"
      testId="chart-stdout"
      legend={[
        { label: 'stdout', color: STDOUT, value: formatRate(last?.stdoutRate ?? 0) },
        { label: 'stderr', color: STDERR, value: formatRate(last?.stderrRate ?? 0) },
      ]}
    >
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={MARGIN_RIGHT_PAD}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
          {timeAxis(domain, xTicks)}
          {valueAxis(y, tickBytes, 42)}
          {seriesLine('stdoutRate', STDOUT, { width: 1.5 })}
          {seriesLine('stderrRate', STDERR, { width: 1 })}
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
