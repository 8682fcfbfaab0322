/**
 * What tapping a discovered config will do (a dry run of `config:tap-install` /
 * `config:tap-uninstall`), and what it did: one line per server, the backup, the restart line.
 * Pure views: TapConfigActions.tsx holds the steps and the calls.
 */
import type { ReactElement, ReactNode } from 'react';
import type { TapChange, TapConfigResult, TapStatus } from '../../../shared/tap-config';

const PLAN_WORDS: Record<TapStatus, string> = {
  wrapped: 'will be wrapped',
  unwrapped: 'will be unwrapped',
  'already-tapped': 'already tapped',
  skipped: 'skipped',
  'left-tapped': 'stays tapped',
};

const DONE_WORDS: Record<TapStatus, string> = {
  wrapped: 'wrapped',
  unwrapped: 'unwrapped',
  'already-tapped': 'already tapped',
  skipped: 'skipped',
  'left-tapped': 'left tapped',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The servers the run changes (wrapped on install, unwrapped on uninstall). */
export function changedServers(r: TapConfigResult): TapChange[] {
  const status: TapStatus = r.action === 'install' ? 'wrapped' : 'unwrapped';
  return r.servers.filter((s) => s.status === status);
}

function ServerLines({ r, words }: { r: TapConfigResult; words: Record<TapStatus, string> }) {
  const where = new Set(r.servers.map((s) => s.location)).size > 1;
  if (r.servers.length === 0) {
    return (
      <p className="muted small-text">
        {r.action === 'install'
          ? 'No server entries in this file.'
          : 'No tapped server in this file.'}
      </p>
    );
  }
  return (
    <ul className="tap-servers">
      {r.servers.map((s) => (
        <li
          key={`${s.location}\0${s.name}`}
          data-testid="tap-server"
          data-name={s.name}
          data-status={s.status}
        >
          <span className="tap-status" data-status={s.status}>
            {words[s.status]}
          </span>
          <span className="mono">{s.name}</span>
          {where ? <span className="muted small-text"> in {s.location}</span> : null}
          {s.reason ? <span className="muted small-text">: {s.reason}</span> : null}
          {s.status === 'unwrapped' && s.exact ? (
            <span className="muted small-text"> (exactly as before)</span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function LauncherLine({ r }: { r: TapConfigResult }): ReactElement | null {
  if (!r.launcher) return null;
  return (
    <div className="tap-launcher small-text">
      <span className="muted">Each wrapped entry runs:</span>
      <code className="tap-argv">
        {r.launcher.front ? `${r.launcher.front} node ` : ''}
        {r.launcher.node} {r.launcher.bin} tap --name NAME --host "{r.host}" -- COMMAND ARGS…
      </code>
      {r.launcher.note ? <p className="import-note">{r.launcher.note}</p> : null}
    </div>
  );
}

/** The confirm step: what the run will change, and the buttons (given by the caller). */
export function TapPlan({
  plan,
  actions,
}: {
  plan: TapConfigResult;
  actions: ReactNode;
}): ReactElement {
  const n = changedServers(plan).length;
  let intro: string;
  if (!plan.changed) {
    intro =
      plan.action === 'install'
        ? 'Nothing to tap: every stdio server here runs through pipescope tap already, or cannot.'
        : 'Nothing to untap: no server here runs through pipescope tap.';
  } else if (plan.action === 'install') {
    const all = plan.servers.length === n;
    const what =
      n === 1 ? (all ? 'its one server' : 'this server') : `${all ? 'its' : 'these'} ${n} servers`;
    intro = `Wrap ${what} of ${plan.host} in pipescope tap? The file is backed up beside itself first; Untap puts the entries back exactly.`;
  } else {
    intro = `Put ${plural(n, 'server')} of ${plan.host} back as ${n === 1 ? 'it was' : 'they were'} before tap install? The file is backed up beside itself first.`;
  }
  return (
    <div className="tap-box" data-testid="tap-plan" data-action={plan.action}>
      <p className="small-text">{intro}</p>
      <ServerLines r={plan} words={PLAN_WORDS} />
      {plan.changed ? <LauncherLine r={plan} /> : null}
      <div className="form-row">{actions}</div>
    </div>
  );
}

/** What the run did: per server, the backup and manifest, and the restart line. */
export function TapOutcome({
  result,
  actions,
}: {
  result: TapConfigResult;
  actions?: ReactNode;
}): ReactElement {
  const n = changedServers(result).length;
  const verb = result.action === 'install' ? 'Tapped' : 'Untapped';
  return (
    <div className="tap-box" data-testid="tap-result" data-action={result.action}>
      <p className="small-text">
        <strong>
          {result.changed
            ? `${verb} ${plural(n, 'server')}.`
            : 'No change: the file was not written.'}
        </strong>
      </p>
      <ServerLines r={result} words={DONE_WORDS} />
      {result.backup ? (
        <p className="small-text tap-path">
          <span className="muted">Backup of the previous file: </span>
          <span className="mono" data-testid="tap-backup">
            {result.backup}
          </span>
        </p>
      ) : null}
      {result.changed && result.launcher?.note ? (
        <p className="import-note small-text">{result.launcher.note}</p>
      ) : null}
      {result.restart ? (
        <p className="tap-restart" data-testid="tap-restart">
          {result.restart}
        </p>
      ) : null}
      {actions ? <div className="form-row">{actions}</div> : null}
    </div>
  );
}
