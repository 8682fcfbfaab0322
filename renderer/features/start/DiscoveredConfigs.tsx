/**
 * "Found on this machine": configs of other hosts at their default locations (`config:discover`),
 * each with its servers (Start) and "Tap its servers" / "Untap" (TapConfigActions.tsx).
 */
import { type ReactElement, useEffect, useState } from 'react';
import type { DiscoveredConfig } from '../../../shared/host-api';
import { useHost } from '../../app/host-context';
import { ErrorText } from '../../components/ErrorText';
import { ImportedServerList } from './ImportedServerList';
import { TapConfigActions } from './TapConfigActions';

export function DiscoveredConfigs(): ReactElement {
  const host = useHost();
  const [found, setFound] = useState<DiscoveredConfig[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [scanning, setScanning] = useState(false);

  const scan = async (): Promise<void> => {
    setScanning(true);
    setError(null);
    try {
      const r = await host.invoke('config:discover', {});
      if (r.ok) setFound(r.value);
      else setError(r.error.message);
    } finally {
      setScanning(false);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: scan once when the screen opens
  useEffect(() => {
    void scan().catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, []);

  return (
    <div className="discovered" data-testid="discovered-configs">
      <div className="form-row">
        <span className="muted small-text">
          {scanning
            ? 'Looking…'
            : found
              ? `${found.length} config file${found.length === 1 ? '' : 's'} found`
              : ''}
        </span>
        <button type="button" className="small" disabled={scanning} onClick={() => void scan()}>
          Look again
        </button>
      </div>
      <ErrorText message={error} />
      {found?.map((c) => (
        <div key={c.path} className="discovered-file">
          <div className="mono small-text" title={c.path}>
            {c.path}
          </div>
          <TapConfigActions
            config={c}
            onChanged={() =>
              void scan().catch((e: unknown) =>
                setError(e instanceof Error ? e.message : String(e)),
              )
            }
          />
          {c.error ? <ErrorText message={c.error} /> : null}
          {c.result ? <ImportedServerList result={c.result} testPrefix="found" /> : null}
        </div>
      ))}
    </div>
  );
}
