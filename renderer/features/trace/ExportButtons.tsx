/**
 * Export buttons (Perfetto JSON, HTML and Markdown incident reports) for a trace session or a
 * live session's recording: `trace:export` returns the text, saved through a Blob download.
 */
import type { ReactElement } from 'react';
import type { Result } from '../../../shared/result';
import type { ExportFormat } from '../../../shared/trace-api';
import { useHost } from '../../app/host-context';
import { useAsyncAction } from '../../components/useAsyncAction';
import { appStore } from '../../store';
import { downloadText } from './download';

const LABELS: Record<ExportFormat, string> = {
  perfetto: 'Perfetto',
  html: 'HTML report',
  md: 'Markdown',
};
const FORMATS = ['perfetto', 'html', 'md'] as const satisfies readonly ExportFormat[];

export function ExportButtons({
  target,
}: {
  target: { traceId: string } | { sessionId: string };
}): ReactElement {
  const host = useHost();
  return (
    <span className="export-buttons" data-testid="export-buttons">
      <span className="muted small-text">Export</span>
      {FORMATS.map((format) => (
        <ExportButton
          key={format}
          format={format}
          run={async () => {
            const r = await host.invoke('trace:export', { ...target, format });
            if (!r.ok) {
              appStore.getState().notify(`Export ${LABELS[format]}: ${r.error.message}`);
              return r;
            }
            downloadText(r.value.fileName, r.value.mime, r.value.text);
            return { ok: true, value: null };
          }}
        />
      ))}
    </span>
  );
}

function ExportButton({
  format,
  run,
}: {
  format: ExportFormat;
  run: () => Promise<Result<null>>;
}): ReactElement {
  const action = useAsyncAction(run);
  return (
    <button
      type="button"
      className="small"
      data-testid={`export-${format}`}
      data-state={action.pending ? 'busy' : 'idle'}
      disabled={action.pending}
      onClick={() => void action.run()}
    >
      {LABELS[format]}
    </button>
  );
}
