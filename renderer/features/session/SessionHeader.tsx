import { type ReactElement, useState } from 'react';
import { hostProfile } from '../../../shared/host-profiles';
import { isEnded } from '../../../shared/session-info';
import { useApp } from '../../store';
import { hostHandshake } from '../../store/selectors';
import { formatArgv } from '../start/argv';
import { profileSummary } from '../start/host-profile-view';
import { RetryDialog } from '../start/RetryDialog';
import { RecordToggle } from '../trace/RecordToggle';
import { sessionOutcome } from './outcome';
import type { SessionActions } from './useSessionActions';

/**
 * What runs (the exact argv), what answered (serverInfo), the host profile whose limits apply,
 * what became of it (the badge: "exited with code 3", "stopped by you", …) and the actions:
 * Stop while it runs, then Restart (the same config, in this tab) and Edit & restart. A tapped
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
  const [editing, setEditing] = useState(false);
  // One restart per click: the view moves to the new session once the host answers.
  const [restarting, setRestarting] = useState(false);
  if (!info) return null;
  const live = info.state === 'running' || info.state === 'starting';
  const ended = isEnded(info.state);
  const outcome = sessionOutcome(info);
  // A replay a tap started runs in the tap's process: the tap would refuse a restart.
  const restartable = ended && !info.tap;
  return (
    <div className="session-header">
      <div className="session-title">
        <h1>{info.title}</h1>
        <span
          className="state-badge"
          data-state={info.state}
          data-outcome={outcome.kind}
          data-testid="session-state"
          title={outcome.detail}
        >
          {outcome.badge}
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
        ) : ended ? null : (
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
      {tapped ? null : (
        <div className="session-actions">
          {restartable ? (
            <>
              <button
                type="button"
                className="small primary"
                data-testid="restart-session"
                title="Start the same server again, with the same config, in this tab"
                disabled={restarting}
                onClick={() => {
                  setRestarting(true);
                  void actions.restart().finally(() => setRestarting(false));
                }}
              >
                Restart
              </button>
              <button
                type="button"
                className="small"
                data-testid="edit-restart-session"
                title="Change the command, arguments or options, then start it in this tab"
                onClick={() => setEditing(true)}
              >
                Edit & restart…
              </button>
            </>
          ) : (
            <button
              type="button"
              className="small"
              data-testid="stop-session"
              disabled={!live}
              onClick={() => void actions.stop()}
            >
              Stop
            </button>
          )}
          <RecordToggle sessionId={sessionId} />
        </div>
      )}
      {editing ? (
        <RetryDialog sessionId={sessionId} verb="restart" onClose={() => setEditing(false)} />
      ) : null}
    </div>
  );
}
