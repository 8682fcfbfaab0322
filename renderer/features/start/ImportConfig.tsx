/**
 * "Import config…": pick a host's config file (Claude Desktop, Cursor, VS Code, Claude Code),
 * read it as text in the page and let the host parse it (`config:import`).
 */
import { type ReactElement, useState } from 'react';
import type { ConfigFormat, ImportResult } from '../../../shared/host-api';
import { useHost } from '../../app/host-context';
import { ErrorText } from '../../components/ErrorText';
import { appStore, useApp } from '../../store';
import { ImportedServerList } from './ImportedServerList';

const MAX_CONFIG_BYTES = 8 * 1024 * 1024;
// Listed here rather than imported: shared/host-api.ts carries zod schemas the page never needs.
const CONFIG_FORMATS = [
  'auto',
  'claude-desktop',
  'cursor',
  'vscode',
  'claude-code',
] as const satisfies readonly ConfigFormat[];

export function ImportConfig(): ReactElement {
  const host = useHost();
  const [format, setFormat] = useState<ConfigFormat>('auto');
  // In the store: File → Import Config… (Electron menu) lands in the same list.
  const imported = useApp((s) => s.imported);
  const result = imported?.result ?? null;
  const fileName = imported?.fileName ?? null;
  const [error, setError] = useState<string | null>(null);
  const setResult = (r: ImportResult | null, name: string): void =>
    appStore.getState().setImported(r ? { fileName: name, result: r } : null);

  const read = async (file: File): Promise<void> => {
    setError(null);
    setResult(null, file.name);
    if (file.size > MAX_CONFIG_BYTES) {
      setError(`${file.name} is ${file.size} bytes; a config file is at most 8 MiB.`);
      return;
    }
    const text = await file.text();
    const r = await host.invoke('config:import', { format, text, fileName: file.name });
    if (r.ok) setResult(r.value, file.name);
    else setError(r.error.message);
  };

  return (
    <div className="import-config" data-testid="import-config">
      <div className="form-row">
        <label className="control">
          <span className="control-label">format</span>
          <select
            value={format}
            data-testid="import-format"
            onChange={(e) => setFormat(e.target.value as ConfigFormat)}
          >
            {CONFIG_FORMATS.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </label>
        <label className="file-button">
          <input
            type="file"
            accept=".json,application/json"
            data-testid="import-file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (file)
                void read(file).catch((x: unknown) =>
                  setError(x instanceof Error ? x.message : String(x)),
                );
            }}
          />
          Import config…
        </label>
        {fileName ? <span className="muted small-text mono">{fileName}</span> : null}
      </div>
      <small className="muted">
        claude_desktop_config.json, Cursor mcp.json, VS Code .vscode/mcp.json, Claude Code .mcp.json
      </small>
      <ErrorText message={error} />
      {result ? <ImportedServerList result={result} /> : null}
    </div>
  );
}
