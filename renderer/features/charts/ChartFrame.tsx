import type { ReactElement, ReactNode } from 'react';

interface ChartFrameProps {
  title: string;
  unit: string;
  legend: { label: string; color: string; value?: string; title?: string }[];
  testId: string;
  children: ReactNode;
}

/** A small titled chart box; the legend line shows the latest values (fixed height: no jumps). */
export function ChartFrame({
  title,
  unit,
  legend,
  testId,
  children,
}: ChartFrameProps): ReactElement {
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>
        <div className="chart-title-row">
          <span className="chart-title">{title}</span>
          <span className="chart-unit">{unit}</span>
        </div>
        <div className="chart-legend-row">
          {legend.map((l) => (
            <span key={l.label} className="chart-legend" title={l.title}>
              <i style={{ background: l.color }} />
              {l.label}
              {l.value !== undefined ? <b>{l.value}</b> : null}
            </span>
          ))}
        </div>
      </figcaption>
      <div className="chart-body">{children}</div>
    </figure>
  );
}
