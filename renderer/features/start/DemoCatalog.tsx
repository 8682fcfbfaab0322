import type { ReactElement } from 'react';
import { useApp } from '../../store';
import { DemoCard } from './DemoCard';

/** The demo catalog as cards (from `demo:list`). */
export function DemoCatalog(): ReactElement {
  const catalog = useApp((s) => s.catalog);
  const error = useApp((s) => s.catalogError);
  if (error) return <p className="error-text">Could not load the demo catalog: {error}</p>;
  if (!catalog) return <p className="muted">Loading the demo catalog…</p>;
  return (
    <div className="demo-grid" data-testid="demo-catalog">
      {catalog.map((demo) => (
        <DemoCard key={demo.id} demo={demo} />
      ))}
    </div>
  );
}
