/**
 * A process's CPU % over its last samples, as a tiny inline SVG line (0-100 % of a core, or
 * higher for a multi-threaded process: the scale grows to the peak). Plain SVG, not recharts:
 * one per row, redrawn only when a new sample comes.
 */
import { memo, type ReactElement } from 'react';
import type { ProcessPoint } from '../../../shared/session-info';

const WIDTH = 64;
const HEIGHT = 16;

export function sparkPath(points: readonly ProcessPoint[], samples: number): string {
  const values = points.map((p) => p.cpuPercent ?? 0);
  if (values.length < 2) return '';
  const top = Math.max(100, ...values);
  const step = WIDTH / Math.max(1, samples - 1);
  const x0 = WIDTH - step * (values.length - 1);
  return values
    .map((v, i) => {
      const x = x0 + i * step;
      const y = HEIGHT - 1 - (v / top) * (HEIGHT - 2);
      return `${i === 0 ? 'M' : 'L'}${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

export const CpuSparkline = memo(function CpuSparkline({
  points,
  samples,
}: {
  points: readonly ProcessPoint[];
  /** How many samples the full width spans (fewer are drawn from the right). */
  samples: number;
}): ReactElement {
  const d = sparkPath(points, samples);
  return (
    <svg
      className="cpu-spark"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      aria-hidden="true"
    >
      <line x1={0} x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="cpu-spark-base" />
      {d ? <path d={d} className="cpu-spark-line" /> : null}
    </svg>
  );
});
