/**
 * The banner of a tapped session: whose server this is (the host, its pid, the tap), why the
 * controls that act on it are not there, and the flight recorder's dump (`tap:dump`: the tap
 * writes its last 64 MiB of events to the traces folder), with the path it wrote and a button
 * to open that trace.
 */
import './tap.css';
import { type ReactElement, useState } from 'react';
import { useHost } from '../../app/host-context';
import { useAsyncAction } from '../../components/useAsyncAction';
import { useApp } from '../../store';
import { useOpenTrace } from '../trace/useOpenTrace';
import { TAP_READ_ONLY_WHY, tapBannerText } from './tap-view';

export function TapBanner({ sessionId }: { sessionId: string }): ReactElement | null {
  const tap = useApp((s) => s.bySession[sessionId]?.info.tap ?? null);
  if (!tap) return null;
  return (
    <section
      className="tap-banner"
      data-testid="tap-banner"
      data-replay={tap.replay === true}
      aria-label="Tapped session"
    >
      <span className="tap-badge">{tap.replay ? 'REPLAY' : 'TAPPED'}</span>
      <div className="tap-text">
        <p data-testid="tap-banner-text">{tapBannerText(tap)}</p>
        <p className="muted small-text tap-details">
          {tap.replay ? null : <span>{TAP_READ_ONLY_WHY}</span>}
          <span title={tap.host.command ? `host: ${tap.host.command}` : undefined}>
            tap pid {tap.tapPid} · server cwd <code>{tap.server.cwd}</code>
          </span>
          {tap.relay ? (
            <span
              data-testid="tap-relay"
              data-relay={tap.relay.kind}
              title={
                tap.relay.kind === 'native'
                  ? 'The bytes move by splice(2), outside JavaScript: the host reads about as fast as without the tap.'
                  : `The JavaScript relay: ${tap.relay.reason ?? ''}`
              }
            >
              {' '}
              · relay {tap.relay.kind === 'native' ? 'native' : 'Node'}
            </span>
          ) : null}
        </p>
      </div>
      {tap.replay ? null : <FlightRecorderDump sessionId={sessionId} />}
    </section>
  );
}

function FlightRecorderDump({ sessionId }: { sessionId: string }): ReactElement {
  const host = useHost();
  const [path, setPath] = useState<string | null>(null);
  const open = useOpenTrace();
  const dump = useAsyncAction(async () => {
    const r = await host.invoke('tap:dump', { sessionId });
    setPath(r.ok ? r.value.path : null);
    return r;
  });
  return (
    <div className="tap-dump" data-testid="tap-dump-state" data-state={dumpState(dump, path)}>
      <button
        type="button"
        className="small"
        data-testid="tap-dump"
        disabled={dump.pending}
        title="The tap writes its flight recorder (the last 64 MiB of this session's events) to the traces folder"
        onClick={() => void dump.run()}
      >
        {dump.pending ? 'Writing…' : 'Write flight recorder'}
      </button>
      {path && !dump.pending ? (
        <>
          <code className="tap-dump-path small-text" data-testid="tap-dump-path" title={path}>
            {path}
          </code>
          <button
            type="button"
            className="small"
            data-testid="tap-dump-open"
            title="Open this trace as a read-only session"
            onClick={() => void open.openPath(path)}
          >
            Open
          </button>
        </>
      ) : null}
      {dump.error ? (
        <span className="error-text small-text" data-testid="tap-dump-error">
          {dump.error}
        </span>
      ) : null}
    </div>
  );
}

function dumpState(dump: { pending: boolean; error: string | null }, path: string | null): string {
  if (dump.pending) return 'writing';
  if (dump.error) return 'failed';
  return path ? 'written' : 'idle';
}
