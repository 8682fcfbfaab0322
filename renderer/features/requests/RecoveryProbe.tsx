import type { ReactElement } from 'react';
import type { RecoveryInfo } from '../../../shared/host-api';
import { formatMs } from '../../components/format';
import { useAsyncAction } from '../../components/useAsyncAction';
import type { SessionActions } from '../session/useSessionActions';

interface RecoveryProbeProps {
  actions: SessionActions;
  recovery: RecoveryInfo | null;
  disabled: boolean;
}

/**
 * The real test of a cancellation (DESIGN.md): a second, small request on the same session
 * that must complete fast.
 */
export function RecoveryProbe({ actions, recovery, disabled }: RecoveryProbeProps): ReactElement {
  const probe = useAsyncAction(actions.recover);
  return (
    <span className="recovery">
      {recovery ? (
        <span
          className="recovery-result"
          data-testid="recovery-result"
          data-ok={recovery.ok}
          title="Latency of the probe sent after the cancellation"
        >
          {recovery.method} {recovery.ok ? 'ok' : 'failed'} · {formatMs(recovery.latencyMs)}
        </span>
      ) : null}
      <button
        type="button"
        className="small"
        data-testid="recovery-probe"
        disabled={disabled || probe.pending}
        onClick={() => void probe.run()}
        title="Send a small request (ping) and time it: did the session recover?"
      >
        {probe.pending ? 'Probing…' : 'Recovery probe'}
      </button>
    </span>
  );
}
