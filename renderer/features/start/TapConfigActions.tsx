/**
 * "Tap its servers" / "Untap" beside a discovered config: a dry run first (what will change),
 * a confirm step, then the run and its result (backup, restart line). The host refuses any path
 * discovery does not find, so only the configs listed here can be rewritten.
 */
import { type ReactElement, useState } from 'react';
import type { DiscoveredConfig } from '../../../shared/host-api';
import type { TapConfigResult } from '../../../shared/tap-config';
import { useHost } from '../../app/host-context';
import { ErrorText } from '../../components/ErrorText';
import { useAsyncAction } from '../../components/useAsyncAction';
import { changedServers, TapOutcome, TapPlan } from './TapConfigView';

type Step =
  | { kind: 'idle' }
  | { kind: 'confirm'; plan: TapConfigResult }
  | { kind: 'done'; result: TapConfigResult };

/** Whether a config has servers to tap, and tapped ones to untap. */
export function tapChoices(c: DiscoveredConfig): { tap: boolean; untap: boolean } {
  const stdio = c.result?.servers.length ?? 0;
  const tapped = c.tapped ?? 0;
  return { tap: c.result !== null && stdio > tapped, untap: tapped > 0 };
}

export function TapConfigActions({
  config,
  onChanged,
}: {
  config: DiscoveredConfig;
  /** The file was written: discovery should look again (the tapped count changed). */
  onChanged: () => void;
}): ReactElement | null {
  const host = useHost();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const call = useAsyncAction(
    (action: 'install' | 'uninstall', dryRun: boolean, servers?: string[]) =>
      action === 'install'
        ? host.invoke('config:tap-install', { path: config.path, servers, dryRun })
        : host.invoke('config:tap-uninstall', { path: config.path, dryRun }),
  );
  const choices = tapChoices(config);
  if (!choices.tap && !choices.untap && step.kind === 'idle' && !call.error) return null;

  const preview = async (action: 'install' | 'uninstall'): Promise<void> => {
    const r = await call.run(action, true);
    if (r?.ok) setStep({ kind: 'confirm', plan: r.value });
  };
  const confirm = async (plan: TapConfigResult): Promise<void> => {
    // Install only what the confirm step listed (a server added since is left alone).
    const names =
      plan.action === 'install' ? [...new Set(changedServers(plan).map((s) => s.name))] : undefined;
    const r = await call.run(plan.action, false, names);
    if (!r?.ok) return;
    setStep({ kind: 'done', result: r.value });
    if (r.value.changed) onChanged();
  };
  const close = (): void => {
    call.clearError();
    setStep({ kind: 'idle' });
  };

  return (
    <div className="tap-actions" data-testid="tap-actions" data-path={config.path}>
      {step.kind === 'idle' ? (
        <div className="form-row">
          {choices.tap ? (
            <button
              type="button"
              className="small"
              data-testid="tap-install"
              disabled={call.pending}
              title="Wrap this host's stdio servers in pipescope tap, so that the app sees their traffic live"
              onClick={() => void preview('install')}
            >
              {call.pending ? 'Reading…' : 'Tap its servers'}
            </button>
          ) : null}
          {choices.untap ? (
            <button
              type="button"
              className="small"
              data-testid="tap-uninstall"
              disabled={call.pending}
              title="Put the tapped entries back as they were"
              onClick={() => void preview('uninstall')}
            >
              Untap {config.tapped}
            </button>
          ) : null}
          {config.tapped ? (
            <span className="muted small-text">
              {config.tapped} of {config.result?.servers.length ?? 0} tapped
            </span>
          ) : null}
        </div>
      ) : null}
      {step.kind === 'confirm' ? (
        <TapPlan
          plan={step.plan}
          actions={
            <>
              {step.plan.changed ? (
                <button
                  type="button"
                  className="small primary"
                  data-testid="tap-confirm"
                  disabled={call.pending}
                  onClick={() => void confirm(step.plan)}
                >
                  {call.pending
                    ? 'Writing…'
                    : `${step.plan.action === 'install' ? 'Tap' : 'Untap'} ${changedServers(step.plan).length}`}
                </button>
              ) : null}
              <button type="button" className="small" disabled={call.pending} onClick={close}>
                {step.plan.changed ? 'Cancel' : 'Close'}
              </button>
            </>
          }
        />
      ) : null}
      {step.kind === 'done' ? (
        <TapOutcome
          result={step.result}
          actions={
            <button type="button" className="small" onClick={close}>
              Done
            </button>
          }
        />
      ) : null}
      <ErrorText message={call.error} />
    </div>
  );
}
