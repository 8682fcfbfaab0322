import type { ReactElement } from 'react';
import { SHORTCUTS } from './shortcuts';

/** The `?` overlay listing the keyboard shortcuts. */
export function ShortcutHelp({ onClose }: { onClose(): void }): ReactElement {
  return (
    <div className="overlay" data-testid="shortcut-help">
      <button type="button" className="overlay-backdrop" aria-label="Close" onClick={onClose} />
      <div className="dialog" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts">
        <header>
          <h2>Keyboard shortcuts</h2>
          <button type="button" className="small" onClick={onClose}>
            Close
          </button>
        </header>
        <table className="shortcuts">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.key}>
                <td>
                  <kbd>{s.key}</kbd>
                </td>
                <td>{s.action}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted small-text">Keys typed into a field are never shortcuts.</p>
      </div>
    </div>
  );
}
