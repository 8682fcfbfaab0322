/**
 * The y axes and lines of the live line charts. Functions returning the elements (not
 * components), so recharts still sees a YAxis or a Line among the chart's direct children (as
 * time-axis.tsx does for the x axis). The scale comes from yScale, kept stable by useStable.
 */
import type { ReactElement } from 'react';
import { Line, YAxis } from 'recharts';
import type { YScale } from './chart-format';
import { AXIS_STROKE, AXIS_TICK } from './chart-props';

/** `yAxisId` only when the chart has several y axes (recharts' default id otherwise). */
const axisId = (id: string | undefined): { yAxisId?: string } =>
  id === undefined ? {} : { yAxisId: id };

/** A y axis over a fixed scale (no nice-tick search), `width` px wide. */
export function valueAxis(
  scale: YScale,
  format: (value: number) => string,
  width: number,
  placement: { id?: string; right?: boolean } = {},
): ReactElement {
  return (
    <YAxis
      {...axisId(placement.id)}
      orientation={placement.right ? 'right' : 'left'}
      width={width}
      type="number"
      domain={scale.domain}
      ticks={scale.ticks}
      niceTicks="none"
      tickFormatter={format}
      stroke={AXIS_STROKE}
      tick={AXIS_TICK}
    />
  );
}

/** One series as a line: no dots, no animation (a live chart redraws several times a second). */
export function seriesLine(
  dataKey: string,
  color: string,
  look: { width: number; type?: 'linear' | 'stepAfter'; axis?: string },
): ReactElement {
  return (
    <Line
      {...axisId(look.axis)}
      dataKey={dataKey}
      stroke={color}
      dot={false}
      activeDot={false}
      isAnimationActive={false}
      strokeWidth={look.width}
      type={look.type ?? 'linear'}
    />
  );
}
