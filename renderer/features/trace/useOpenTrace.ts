/**
 * Opening a trace from the renderer: a path on the host (`trace:open`) or a file from the page
 * (drag-and-drop, file input) streamed with `trace:upload`. Either way the host registers a
 * read-only trace session and the app shows it. The progress is this hook's own state.
 */
import { useCallback, useState } from 'react';
import type { Result } from '../../../shared/result';
import type { SessionInfo } from '../../../shared/session-info';
import { useHost } from '../../app/host-context';
import { appStore } from '../../store';
import { uploadTrace } from './upload';

export interface OpenProgress {
  fileName: string;
  sent: number;
  total: number;
  state: 'uploading' | 'opening' | 'done' | 'failed';
  error: string | null;
}

export interface OpenTrace {
  progress: OpenProgress | null;
  openFile(file: File): Promise<void>;
  openPath(path: string): Promise<void>;
}

export function useOpenTrace(): OpenTrace {
  const host = useHost();
  const [progress, setProgress] = useState<OpenProgress | null>(null);

  const finish = useCallback((fileName: string, r: Result<SessionInfo | null>): void => {
    if (r.ok && r.value) {
      appStore.getState().openSession(r.value);
      setProgress((p) => (p ? { ...p, state: 'done' } : null));
      return;
    }
    const message = r.ok ? 'the host did not open the trace' : r.error.message;
    appStore.getState().notify(`Open trace ${fileName}: ${message}`);
    setProgress((p) => ({
      fileName,
      sent: p?.sent ?? 0,
      total: p?.total ?? 0,
      state: 'failed',
      error: message,
    }));
  }, []);

  const openFile = useCallback(
    async (file: File): Promise<void> => {
      setProgress({
        fileName: file.name,
        sent: 0,
        total: file.size,
        state: 'uploading',
        error: null,
      });
      const r = await uploadTrace(
        file,
        (chunk) => host.invoke('trace:upload', chunk),
        (sent, total) =>
          setProgress({
            fileName: file.name,
            sent,
            total,
            state: sent >= total ? 'opening' : 'uploading',
            error: null,
          }),
      );
      finish(file.name, r.ok ? { ok: true, value: r.value.session } : r);
    },
    [host, finish],
  );

  const openPath = useCallback(
    async (path: string): Promise<void> => {
      setProgress({ fileName: path, sent: 0, total: 0, state: 'opening', error: null });
      finish(path, await host.invoke('trace:open', { path }));
    },
    [host, finish],
  );

  return { progress, openFile, openPath };
}
