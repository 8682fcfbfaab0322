/** Renderer entry: get the host (Electron bridge or browser-mode WebSocket) and mount the app. */
import './styles.css';
import { createRoot } from 'react-dom/client';
import type { HostApi } from '../../shared/host-api';
import { getHost } from '../host/index';
import { App } from './App';

const root = document.getElementById('root');
if (root) {
  let host: HostApi | null = null;
  let failure: string | null = null;
  try {
    host = getHost();
  } catch (e) {
    failure = e instanceof Error ? e.message : String(e);
  }
  createRoot(root).render(
    host ? (
      <App host={host} />
    ) : (
      <main data-state="failed" className="fatal">
        <h1>Pipescope cannot reach its host</h1>
        <p className="error-text">{failure}</p>
      </main>
    ),
  );
}
