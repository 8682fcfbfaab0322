/**
 * One demo of the catalog: the lesson, knobs (editable, defaults), the host profile to run it
 * under, steps, expected findings. Edit & retry shows it with a session's knobs (`initial`)
 * and runs it through `onStart` (a restart in that session's place) instead of a new start.
 */
import { type ReactElement, useState } from 'react';
import type { DemoScenario } from '../../../shared/demo-catalog';
import { FINDING_LEVELS } from '../../../shared/findings';
import type { StartOptions, StartSessionRequest } from '../../../shared/host-api';
import type { HostProfileId } from '../../../shared/host-profiles';
import type { Result } from '../../../shared/result';
import type { SessionInfo } from '../../../shared/session-info';
import { ErrorText } from '../../components/ErrorText';
import { formatBytes } from '../../components/format';
import { useAsyncAction } from '../../components/useAsyncAction';
import { formatArgv } from './argv';
import { HostProfileSelect } from './HostProfileSelect';
import { useStartCall } from './useStartSession';

export interface DemoCardProps {
  demo: DemoScenario;
  initial?: { knobs: Record<string, string>; options: StartOptions };
  startLabel?: string;
  onStart?(request: StartSessionRequest): Promise<Result<SessionInfo>>;
}

function knobHint(unit: string | undefined, value: string): string | null {
  if (unit === 'bytes' && /^\d+$/.test(value)) return formatBytes(Number(value));
  return unit ?? null;
}

export function DemoCard({
  demo,
  initial,
  startLabel = 'Start',
  onStart,
}: DemoCardProps): ReactElement {
  const [knobs, setKnobs] = useState<Record<string, string>>(() =>
    Object.fromEntries(demo.knobs.map((k) => [k.name, initial?.knobs[k.name] ?? k.default])),
  );
  const [hostProfile, setHostProfile] = useState<HostProfileId | null>(
    initial?.options.hostProfile ?? null,
  );
  const startCall = useStartCall();
  const start = useAsyncAction((request: StartSessionRequest) =>
    onStart ? onStart(request) : startCall(request),
  );
  // Only knobs that differ from their defaults go on the command line.
  const changed = Object.fromEntries(
    demo.knobs.filter((k) => knobs[k.name] !== k.default).map((k) => [k.name, knobs[k.name]]),
  );
  const argvTail = Object.entries(changed).map(([name, value]) => `--${name}=${value}`);
  const demoLine = `node ${demo.id}.js ${formatArgv(argvTail)}`.trimEnd();
  return (
    <article className="demo-card" data-testid={`demo-${demo.id}`}>
      <header>
        <h3>{demo.title}</h3>
        <code className="demo-id">{demo.id}</code>
      </header>
      <p className="lesson">{demo.lesson}</p>
      {demo.expected.findings.length > 0 ? (
        <div className="chips" title="Findings this demo is expected to raise">
          {demo.expected.findings.map((code) => (
            <span key={code} className="chip" data-level={FINDING_LEVELS[code]}>
              {code}
            </span>
          ))}
        </div>
      ) : (
        <div className="chips">
          <span className="chip" data-level="ok">
            no findings expected
          </span>
        </div>
      )}
      <details open={initial !== undefined}>
        <summary>
          Knobs ({demo.knobs.length}) · host profile{hostProfile ? ` (${hostProfile})` : ''} · steps
          ({demo.steps.length})
        </summary>
        {demo.knobs.length > 0 ? (
          <div className="knobs">
            {demo.knobs.map((k) => (
              <label key={k.name} className="knob" title={k.description}>
                <span className="mono">--{k.name}</span>
                <input
                  className="mono"
                  value={knobs[k.name]}
                  data-testid={`knob-${demo.id}-${k.name}`}
                  onChange={(e) => setKnobs((prev) => ({ ...prev, [k.name]: e.target.value }))}
                />
                <span className="muted small-text">{knobHint(k.unit, knobs[k.name])}</span>
                <small className="muted">
                  {k.description} (default {k.default})
                </small>
              </label>
            ))}
          </div>
        ) : null}
        <HostProfileSelect
          value={hostProfile}
          onChange={setHostProfile}
          testId={`demo-host-profile-${demo.id}`}
        />
        <ol className="steps">
          {demo.steps.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ol>
      </details>
      <footer>
        <code
          className="demo-argv"
          data-testid={`demo-argv-${demo.id}`}
          title={`${demoLine} (the bundled server runs with Node, no shell)`}
        >
          {demoLine}
        </code>
        <button
          type="button"
          className="primary"
          data-testid={`start-demo-${demo.id}`}
          disabled={start.pending}
          onClick={() =>
            void start.run({
              ...withoutProfile(initial?.options),
              demo: { id: demo.id, knobs: changed },
              ...(hostProfile ? { hostProfile } : {}),
            })
          }
        >
          {start.pending ? 'Starting…' : startLabel}
        </button>
      </footer>
      <ErrorText message={start.error} />
    </article>
  );
}

/** A config's options but its host profile (the card's picker says which one applies). */
function withoutProfile(options: StartOptions | undefined): StartOptions {
  if (!options) return {};
  const { hostProfile: _profile, ...rest } = options;
  return rest;
}
