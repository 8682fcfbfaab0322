import type { ReactElement } from 'react';
import { formatArgv } from './argv';

interface CommandPreviewProps {
  argv: readonly string[];
  cwd?: string;
  envNames?: readonly string[];
  testId?: string;
}

/**
 * The exact command, shown before it first runs (HARDENING 17): quoted for reading, and the
 * argv array itself, since that (not a shell line) is what gets spawned.
 */
export function CommandPreview({
  argv,
  cwd,
  envNames = [],
  testId = 'command-preview',
}: CommandPreviewProps): ReactElement {
  return (
    <div className="command-preview" data-testid={testId}>
      <div className="command-line">
        <span className="prompt">$</span>
        <code>{argv.length > 0 ? formatArgv(argv) : '…'}</code>
      </div>
      <div className="command-meta muted small-text">
        <span title="spawned as an argv array, no shell">argv {JSON.stringify(argv)}</span>
        {cwd ? <span>cwd {cwd}</span> : null}
        {envNames.length > 0 ? <span>env {envNames.map((n) => `${n}=•••`).join(' ')}</span> : null}
      </div>
    </div>
  );
}
