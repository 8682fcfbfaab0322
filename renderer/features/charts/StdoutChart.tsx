/**
 * stdout and stderr bytes per second over the window. Pure and memoized: LiveCharts hands it a
 * sampled, decimated series; both axes are fixed by us (stable props, no nice-tick search).
 */
import { memo, type ReactElement, useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, YAxis } from 'recharts';
import type { SeriesPoint } from '../../../shared/host-api';
import { formatRate } from '../../components/format';
import { ChartFrame } from './ChartFrame';
import { sameScale, tickBytes, yScale } from './chart-format';
import {
  AXIS_STROKE,
  AXIS_TICK,
  GRID_STROKE,
  MARGIN_RIGHT_PAD,
  type TimeWindow,
  Y_TICKS,
} from './chart-props';
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
          <YAxis
            width={42}
            type="number"
            domain={y.domain}
            ticks={y.ticks}
            niceTicks="none"
            tickFormatter={tickBytes}
            stroke={AXIS_STROKE}
            tick={AXIS_TICK}
          />
          <Line
            dataKey="stdoutRate"
            stroke={STDOUT}
            dot={false}
            activeDot={false}
            isAnimationActive={false}
            strokeWidth={1.5}
            type="linear"
          />
          <Line
            dataKey="stderrRate"
            stroke={STDERR}
            dot={false}
            activeDot={false}
            isAnimationActive={false}
            strokeWidth={1}
            type="linear"
          />
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
