import { memo, type ReactElement, useMemo } from 'react';
import {
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  XAxis,
  YAxis,
} from 'recharts';
import { formatBytes } from '../../components/format';
import type { FrameSize } from '../../store/types';
import { ChartFrame } from './ChartFrame';
import { frameSizeDots } from './chart-data';
import { tickBytes, tickSeconds, timeTicks } from './chart-format';

const IN = 'var(--ps-chart-1)';
const OUT = 'var(--ps-chart-2)';
const LIMIT = 'var(--ps-error)';
/** Time buckets: one dot per bucket and direction (the largest frame), whatever the rate. */
const BUCKETS = 60;

interface FrameSizeChartProps {
  sizes: FrameSize[];
  domain: [number, number];
  maxFrameBytes: number;
  largest: number;
}

/** The largest frame per time bucket and direction, size on a log scale, the limit as a line. */
export const FrameSizeChart = memo(function FrameSizeChart({
  sizes,
  domain,
  maxFrameBytes,
  largest,
}: FrameSizeChartProps): ReactElement {
  const { incoming, outgoing } = useMemo(
    () => frameSizeDots(sizes, domain, BUCKETS),
    [sizes, domain],
  );
  const top = Math.max(maxFrameBytes, largest, 1024) * 2;
  return (
    <ChartFrame
      title="Frame sizes"
      unit="bytes, log scale"
      testId="chart-frame-sizes"
      legend={[
        { label: 'server → host', color: IN },
        { label: 'host → server', color: OUT },
        { label: 'limit', color: LIMIT, value: formatBytes(maxFrameBytes) },
      ]}
    >
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
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
            allowDataOverflow
          />
          <YAxis
            dataKey="bytes"
            type="number"
            scale="log"
            domain={[1, top]}
            ticks={[1, 1024, 1024 ** 2, 1024 ** 3].filter((t) => t <= top)}
            tickFormatter={tickBytes}
            width={42}
            stroke="var(--ps-axis)"
            tick={{ fontSize: 10 }}
            allowDataOverflow
          />
          <ReferenceLine
            y={maxFrameBytes}
            stroke={LIMIT}
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
          />
          <Scatter
            data={incoming}
            fill={IN}
            isAnimationActive={false}
            shape="circle"
            legendType="none"
          />
          <Scatter
            data={outgoing}
            fill={OUT}
            isAnimationActive={false}
            shape="circle"
            legendType="none"
          />
        </ScatterChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
