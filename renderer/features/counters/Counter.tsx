import type { ReactElement, ReactNode } from 'react';

export type Tone = 'normal' | 'warn' | 'error' | 'ok' | 'muted';

interface CounterProps {
  /** Test id suffix: the value carries data-testid="counter-<name>". */
  name: string;
  label: string;
  value: string;
  /** The raw number behind the value, for tests and tooltips. */
  raw?: number | string | null;
  sub?: ReactNode;
  subName?: string;
  tone?: Tone;
  title?: string;
}

/** One cell of the counter strip: a fixed-width, tabular value so nothing jumps. */
export function Counter({
  name,
  label,
  value,
  raw,
  sub,
  subName,
  tone = 'normal',
  title,
}: CounterProps): ReactElement {
  return (
    <div className="counter" data-tone={tone} title={title}>
      <span className="counter-label">{label}</span>
      <span className="counter-value" data-testid={`counter-${name}`} data-value={raw ?? undefined}>
        {value}
      </span>
      <span className="counter-sub" data-testid={subName ? `counter-${subName}` : undefined}>
        {sub ?? '\u00a0'}
      </span>
    </div>
  );
}
