import type { ReactElement } from 'react';
import { createRoot } from 'react-dom/client';

function App(): ReactElement {
  return <div data-state="ready">Pipescope</div>;
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
