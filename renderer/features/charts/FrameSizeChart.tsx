/**
 * The largest frame per time bucket and direction, size on a log scale, the limit as a line.
 * Pure and memoized like StdoutChart. recharts draws the axes, grid and limit; the dots of a
 * direction are one SVG path placed with recharts' own axis scales (a Scatter would mount a
 * component and an element per dot, every redraw).
 */
import { memo, type ReactElement, useMemo } from 'react';
import {
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  ScatterChart,
  useXAxisScale,
  useYAxisScale,
  YAxis,
} from 'recharts';
import { formatBytes } from '../../components/format';
import type { FrameSize } from '../../store/types';
import { ChartFrame } from './ChartFrame';
import { frameSizeDots, type SizeDot } from './chart-data';
import { sameNumbers, tickBytes } from './chart-format';
import {
  AXIS_STROKE,
  AXIS_TICK,
  GRID_STROKE,
  MARGIN_RIGHT_PAD,
  type TimeWindow,
} from './chart-props';
import { timeAxis } from './time-axis';
import { useStable } from './useStable';

const IN = 'var(--ps-chart-1)';
const OUT = 'var(--ps-chart-2)';
const LIMIT = 'var(--ps-error)';
/** Time buckets: one dot per bucket and direction (the largest frame), whatever the rate. */
const BUCKETS = 60;
const DOT_RADIUS = 4;
const LOG_TICKS = [1, 1024, 1024 ** 2, 1024 ** 3];

interface FrameSizeChartProps extends TimeWindow {
  sizes: FrameSize[];
  maxFrameBytes: number;
  largest: number;
}

/** Every dot of one direction as circles in a single path (two arcs each). */
function SizeDots({ dots, fill }: { dots: SizeDot[]; fill: string }): ReactElement | null {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y || dots.length === 0) return null;
  const r = DOT_RADIUS;
  let d = '';
  for (const dot of dots) {
    const cx = x(dot.t);
    const cy = y(dot.bytes);
    if (cx === undefined || cy === undefined || !Number.isFinite(cx) || !Number.isFinite(cy))
      continue;
    d += `M${(cx - r).toFixed(1)},${cy.toFixed(1)}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
  return d === '' ? null : <path d={d} fill={fill} data-testid="frame-size-dots" />;
}

export const FrameSizeChart = memo(function FrameSizeChart({
  sizes,
  domain,
  xTicks,
  maxFrameBytes,
  largest,
}: FrameSizeChartProps): ReactElement {
  const { incoming, outgoing } = useMemo(
    () => frameSizeDots(sizes, domain, BUCKETS),
    [sizes, domain],
  );
  const top = Math.max(maxFrameBytes, largest, 1024) * 2;
  const yDomain = useStable<[number, number]>([1, top], sameNumbers);
  const yTicks = useStable(
    LOG_TICKS.filter((t) => t <= top),
    sameNumbers,
  );
  return (
    <ChartFrame
      title="Frame sizes"
      unit="bytes, log scale"
      testId="chart-frame-sizes"
      legend={[
        // Short words: the row is one line of a third of the dashboard at 1280 px (issue 22).
        { label: 'from server', color: IN, title: 'Frames the server wrote (server → host)' },
        { label: 'to server', color: OUT, title: 'Frames Pipescope wrote (host → server)' },
        {
          label: 'limit',
          color: LIMIT,
          value: formatBytes(maxFrameBytes),
          title: 'The transport limit on one frame (maxFrameBytes)',
        },
      ]}
    >
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={MARGIN_RIGHT_PAD}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
          {timeAxis(domain, xTicks, true)}
          <YAxis
            dataKey="bytes"
            type="number"
            scale="log"
            domain={yDomain}
            ticks={yTicks}
            niceTicks="none"
            tickFormatter={tickBytes}
            width={42}
            stroke={AXIS_STROKE}
            tick={AXIS_TICK}
            allowDataOverflow
          />
          <ReferenceLine
            y={maxFrameBytes}
            stroke={LIMIT}
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
          />
          <SizeDots dots={incoming} fill={IN} />
          <SizeDots dots={outgoing} fill={OUT} />
        </ScatterChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
