import type { ReactElement, ReactNode } from 'react';

interface PanelProps {
  title: ReactNode;
  /** Right side of the title bar: counts, buttons. */
  actions?: ReactNode;
  className?: string;
  testId?: string;
  children: ReactNode;
}

/** A titled box of the dashboard. */
export function Panel({ title, actions, className, testId, children }: PanelProps): ReactElement {
  return (
    <section className={`panel ${className ?? ''}`} data-testid={testId}>
      <header className="panel-head">
        <h2>{title}</h2>
        {actions ? <div className="panel-actions">{actions}</div> : null}
      </header>
      <div className="panel-body">{children}</div>
    </section>
  );
}
