/** Servers read from another host's config: the exact argv of each, env names only, and Start. */
import type { ReactElement } from 'react';
import type { ImportedServer, ImportResult } from '../../../shared/host-api';
import { ErrorText } from '../../components/ErrorText';
import { CommandPreview } from './CommandPreview';
import { useStartSession } from './useStartSession';

/**
 * Notes the importer attached (placeholders kept as text, envFile not loaded). Read here rather
 * than through electron/engine/config/import.ts, which would pull the zod schemas into the page.
 */
function notesOf(server: ImportedServer): string[] {
  const notes = (server as ImportedServer & { notes?: unknown }).notes;
  return Array.isArray(notes) ? notes.filter((n): n is string => typeof n === 'string') : [];
}

function ImportedServerRow({
  server,
  testPrefix,
}: {
  server: ImportedServer;
  testPrefix: string;
}): ReactElement {
  const start = useStartSession();
  return (
    <li className="imported" data-testid={`${testPrefix}-${server.name}`}>
      <div className="imported-head">
        <strong>{server.name}</strong>
        <span className="muted small-text" title={server.source}>
          {server.source}
        </span>
        <button
          type="button"
          className="small primary"
          data-testid={`start-${testPrefix}-${server.name}`}
          disabled={start.pending}
          onClick={() =>
            void start.run({
              server: {
                name: server.name,
                command: server.command,
                args: server.args,
                cwd: server.cwd,
                env: server.env,
              },
            })
          }
        >
          {start.pending ? 'Starting…' : 'Start'}
        </button>
      </div>
      <CommandPreview
        argv={[server.command, ...server.args]}
        cwd={server.cwd}
        envNames={Object.keys(server.env)}
        testId={`${testPrefix}-argv-${server.name}`}
      />
      {notesOf(server).map((note) => (
        <p key={note} className="import-note small-text">
          {note}
        </p>
      ))}
      <ErrorText message={start.error} />
    </li>
  );
}

export function ImportedServerList({
  result,
  testPrefix = 'imported',
}: {
  result: ImportResult;
  testPrefix?: string;
}): ReactElement {
  return (
    <div className="imported-list">
      <p className="muted small-text">
        {result.format}: {result.servers.length} stdio server
        {result.servers.length === 1 ? '' : 's'}
        {result.skipped.length > 0 ? `, ${result.skipped.length} skipped` : ''}
      </p>
      <ul>
        {result.servers.map((s) => (
          <ImportedServerRow key={`${s.source}:${s.name}`} server={s} testPrefix={testPrefix} />
        ))}
      </ul>
      {result.skipped.length > 0 ? (
        <ul className="skipped">
          {result.skipped.map((s) => (
            <li key={s.name} className="muted small-text">
              <span className="mono">{s.name}</span>: {s.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function ImportError({ message }: { message: string | null }): ReactElement | null {
  return <ErrorText message={message} />;
}
