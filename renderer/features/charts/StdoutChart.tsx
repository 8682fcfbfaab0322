import { memo, type ReactElement } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { SeriesPoint } from '../../../shared/host-api';
import { formatRate } from '../../components/format';
import { ChartFrame } from './ChartFrame';
import { tickBytes, tickSeconds, timeTicks } from './chart-format';

const STDOUT = 'var(--ps-chart-1)';
const STDERR = 'var(--ps-chart-3)';

/** stdout and stderr bytes per second over the fixed window of points. */
export const StdoutChart = memo(function StdoutChart({
  points,
  domain,
}: {
  points: SeriesPoint[];
  domain: [number, number];
}): ReactElement {
  const last = points.at(-1);
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
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="var(--ps-grid)" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={domain}
            ticks={timeTicks(domain)}
            tickFormatter={tickSeconds}
            stroke="var(--ps-axis)"
            tick={{ fontSize: 10 }}
            minTickGap={24}
          />
          <YAxis
            width={42}
            tickFormatter={tickBytes}
            stroke="var(--ps-axis)"
            tick={{ fontSize: 10 }}
            allowDecimals={false}
          />
          <Line
            dataKey="stdoutRate"
            stroke={STDOUT}
            dot={false}
            isAnimationActive={false}
            strokeWidth={1.5}
            type="linear"
          />
          <Line
            dataKey="stderrRate"
            stroke={STDERR}
            dot={false}
            isAnimationActive={false}
            strokeWidth={1}
            type="linear"
          />
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
