import { memo, type ReactElement } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { SeriesPoint } from '../../../shared/host-api';
import { formatCount, formatMs } from '../../components/format';
import { ChartFrame } from './ChartFrame';
import { tickCount, tickMs, tickSeconds, timeTicks } from './chart-format';

const DEPTH = 'var(--ps-chart-2)';
const WAIT = 'var(--ps-chart-4)';

/** Dispatcher queue depth (left axis) and cumulative dispatcher wait (right axis). */
export const DispatcherChart = memo(function DispatcherChart({
  points,
  domain,
}: {
  points: SeriesPoint[];
  domain: [number, number];
}): ReactElement {
  const last = points.at(-1);
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
        <LineChart data={points} margin={{ top: 6, right: 0, bottom: 0, left: 0 }}>
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
            yAxisId="depth"
            width={40}
            tickFormatter={tickCount}
            stroke="var(--ps-axis)"
            tick={{ fontSize: 10 }}
            allowDecimals={false}
          />
          <YAxis
            yAxisId="wait"
            orientation="right"
            width={50}
            tickFormatter={tickMs}
            stroke="var(--ps-axis)"
            tick={{ fontSize: 10 }}
          />
          <Line
            yAxisId="depth"
            dataKey="dispatcherDepth"
            stroke={DEPTH}
            dot={false}
            isAnimationActive={false}
            strokeWidth={1.5}
            type="stepAfter"
          />
          <Line
            yAxisId="wait"
            dataKey="dispatcherWaitMs"
            stroke={WAIT}
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
