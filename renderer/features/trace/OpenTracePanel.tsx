/**
 * "Open a trace" on the start screen: a file from this computer (streamed to the host in chunks,
 * the same path as drag-and-drop) or a path on the host's disk (`trace:open`).
 */
import './trace.css';
import { type ReactElement, useState } from 'react';
import { formatBytes } from '../../components/format';
import { type OpenProgress, useOpenTrace } from './useOpenTrace';

export function OpenTracePanel(): ReactElement {
  const { progress, openFile, openPath } = useOpenTrace();
  const [path, setPath] = useState('');
  return (
    <div className="open-trace" data-testid="open-trace">
      <div className="form-row">
        <label className="file-button">
          <input
            type="file"
            accept=".jsonl,.json,application/x-ndjson,application/json"
            data-testid="trace-file-input"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (file) void openFile(file);
            }}
          />
          Open trace file…
        </label>
        <span className="muted small-text">or drop a .jsonl trace anywhere on the window</span>
      </div>
      <form
        className="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (path.trim()) void openPath(path.trim());
        }}
      >
        <input
          className="mono grow"
          aria-label="Trace path on the host"
          placeholder="/path/on/the/host/trace.jsonl"
          data-testid="trace-path-input"
          value={path}
          onChange={(e) => setPath(e.target.value)}
        />
        <button
          type="submit"
          className="small"
          data-testid="open-trace-path"
          disabled={!path.trim()}
        >
          Open
        </button>
      </form>
      <UploadProgress progress={progress} />
    </div>
  );
}

export function UploadProgress({
  progress,
}: {
  progress: OpenProgress | null;
}): ReactElement | null {
  if (!progress) return null;
  const pct = progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 100;
  return (
    <p
      className="small-text upload-progress"
      data-testid="trace-upload"
      data-state={progress.state}
    >
      <span className="mono">{progress.fileName}</span>{' '}
      {progress.state === 'uploading' ? (
        `uploading ${formatBytes(progress.sent)} of ${formatBytes(progress.total)} (${pct}%)`
      ) : progress.state === 'opening' ? (
        'opening…'
      ) : progress.state === 'done' ? (
        'opened'
      ) : (
        <span className="error-text">{progress.error}</span>
      )}
    </p>
  );
}
