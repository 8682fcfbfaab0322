import type { ReactElement } from 'react';
import { hostProfile } from '../../../shared/host-profiles';
import { useApp } from '../../store';
import { hostHandshake } from '../../store/selectors';
import { formatArgv } from '../start/argv';
import { profileSummary } from '../start/host-profile-view';
import { RecordToggle } from '../trace/RecordToggle';
import type { SessionActions } from './useSessionActions';

/**
 * What runs (the exact argv), what answered (serverInfo), the host profile whose limits apply,
 * and the stop/close actions. A tapped
 * session (`tapped`: the host's traffic) has neither Stop nor Record: the tap refuses both (it
 * has its flight recorder instead), and its handshake is the host's.
 */
export function SessionHeader({
  sessionId,
  actions,
  tapped = false,
}: {
  sessionId: string;
  actions: SessionActions;
  tapped?: boolean;
}): ReactElement | null {
  const info = useApp((s) => s.bySession[sessionId]?.info);
  const hostInit = useApp((s) => {
    const data = s.bySession[sessionId];
    return tapped && data ? hostHandshake(data) : null;
  });
  if (!info) return null;
  const live = info.state === 'running' || info.state === 'starting';
  return (
    <div className="session-header">
      <div className="session-title">
        <h1>{info.title}</h1>
        <span className="state-badge" data-state={info.state} data-testid="session-state">
          {info.state}
        </span>
        {info.serverInfo ? (
          <span className="server-info" data-testid="server-info">
            {info.serverInfo.name} {info.serverInfo.version} · protocol{' '}
            {info.serverInfo.protocolVersion}
          </span>
        ) : info.handshakeError ? (
          <span className="error-text" data-testid="handshake-error">
            handshake failed: {info.handshakeError}
          </span>
        ) : tapped ? (
          <span className="muted" data-testid="host-handshake" data-state={hostInit ?? 'unseen'}>
            {hostInit === null
              ? 'the host’s initialize was not seen'
              : `the host’s initialize: ${hostInit}`}
          </span>
        ) : (
          <span className="muted">handshake…</span>
        )}
        {info.hostProfile ? (
          <span
            className="host-chip"
            data-testid="session-host-profile"
            data-profile={info.hostProfile}
            title={`Host profile (--host ${info.hostProfile}): ${profileSummary(info.hostProfile)}`}
          >
            as {hostProfile(info.hostProfile).name}
          </span>
        ) : null}
      </div>
      <code
        className="argv"
        title={info.cwd ? `cwd: ${info.cwd}` : undefined}
        data-testid="session-argv"
      >
        {formatArgv([info.command, ...info.args])}
      </code>
      {info.envNames.length > 0 ? (
        <span className="muted small-text">
          env: {info.envNames.map((n) => `${n}=•••`).join(' ')}
        </span>
      ) : null}
      {info.startError ? <p className="error-text">{info.startError}</p> : null}
      {tapped ? null : (
        <div className="session-actions">
          <button
            type="button"
            className="small"
            data-testid="stop-session"
            disabled={!live}
            onClick={() => void actions.stop()}
          >
            Stop
          </button>
          <RecordToggle sessionId={sessionId} />
        </div>
      )}
    </div>
  );
}
