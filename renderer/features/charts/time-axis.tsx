/**
 * The x axis every live chart shares: session seconds over a fixed window, ticks chosen by
 * LiveCharts. A function returning the element (not a component), so recharts still sees an
 * XAxis among the chart's direct children.
 */
import type { ReactElement } from 'react';
import { XAxis } from 'recharts';
import { tickSeconds } from './chart-format';
import { AXIS_STROKE, AXIS_TICK } from './chart-props';

export function timeAxis(
  domain: [number, number],
  ticks: number[],
  allowDataOverflow = false,
): ReactElement {
  return (
    <XAxis
      dataKey="t"
      type="number"
      domain={domain}
      ticks={ticks}
      niceTicks="none"
      tickFormatter={tickSeconds}
      stroke={AXIS_STROKE}
      tick={AXIS_TICK}
      minTickGap={24}
      allowDataOverflow={allowDataOverflow}
    />
  );
}
