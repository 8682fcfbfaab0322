/**
 * Run any stdio MCP server: command, args (one per line or shell-like, never through a shell),
 * cwd, env, reader mode, frame limit and the host profile whose limits apply. The exact argv
 * is shown before it runs. Edit & retry opens it filled from a session's config (`initial`)
 * and runs it through `onRun` (a restart in that session's place) instead of a new start.
 */
import { type ReactElement, useState } from 'react';
import type { StartSessionRequest } from '../../../shared/host-api';
import type { HostProfileId } from '../../../shared/host-profiles';
import type { Result } from '../../../shared/result';
import type { SessionInfo } from '../../../shared/session-info';
import { OPTION_LIMITS, READER_MODES, type ReaderMode } from '../../../shared/session-options';
import { MIB } from '../../../shared/units';
import { ErrorText } from '../../components/ErrorText';
import { Segmented } from '../../components/Segmented';
import { useAsyncAction } from '../../components/useAsyncAction';
import { type ArgsMode, parseArgs } from './argv';
import { CommandPreview } from './CommandPreview';
import { ENV_NAME, type EnvRow, EnvRows } from './EnvRows';
import { HostProfileSelect } from './HostProfileSelect';
import { maxFrameMiBFor } from './host-profile-view';
import { keptEnvNames, type ServerDraft } from './server-draft';
import { useStartCall } from './useStartSession';

export interface CustomServerFormProps {
  initial?: ServerDraft;
  submitLabel?: string;
  /** Runs the request instead of `session:start`; `keepEnv`: variables the host fills in. */
  onRun?(request: StartSessionRequest, keepEnv: string[]): Promise<Result<SessionInfo>>;
}

export function CustomServerForm({
  initial,
  submitLabel = 'Run server',
  onRun,
}: CustomServerFormProps = {}): ReactElement {
  const [name, setName] = useState(initial?.name ?? '');
  const [command, setCommand] = useState(initial?.command ?? '');
  const [argsText, setArgsText] = useState(initial?.argsText ?? '');
  const [argsMode, setArgsMode] = useState<ArgsMode>(initial?.argsMode ?? 'lines');
  const [cwd, setCwd] = useState(initial?.cwd ?? '');
  const [env, setEnv] = useState<EnvRow[]>(initial?.env ?? []);
  const [readerMode, setReaderMode] = useState<ReaderMode>(initial?.readerMode ?? 'drain');
  const [maxFrameMiB, setMaxFrameMiB] = useState(
    () => initial?.maxFrameMiB ?? maxFrameMiBFor(null),
  );
  const [hostProfile, setHostProfile] = useState<HostProfileId | null>(
    initial?.hostProfile ?? null,
  );
  const startCall = useStartCall();
  const start = useAsyncAction((request: StartSessionRequest, keepEnv: string[]) =>
    onRun ? onRun(request, keepEnv) : startCall(request),
  );

  const args = parseArgs(argsText, argsMode);
  const maxFrameBytes = Math.round(Number(maxFrameMiB) * MIB);
  const badEnv = env.find((r) => r.name !== '' && !ENV_NAME.test(r.name));
  const problem =
    command.trim() === ''
      ? 'Enter a command.'
      : !args.ok
        ? args.error.message
        : badEnv
          ? `"${badEnv.name}" is not a valid variable name.`
          : !(maxFrameBytes >= 1 && maxFrameBytes <= OPTION_LIMITS.maxFrameBytes)
            ? 'Max frame must be between 1 byte and 2 GiB.'
            : null;
  const argv = [command.trim(), ...(args.ok ? args.value : [])].filter((a, i) => i > 0 || a !== '');
  const envNames = env.filter((r) => r.name !== '').map((r) => r.name);

  const submit = (): void => {
    if (problem || !args.ok) return;
    const given = env.filter((r) => r.name !== '' && !(r.kept && r.value === ''));
    void start.run(
      {
        ...initial?.extra,
        server: {
          name: name.trim() || undefined,
          command: command.trim(),
          args: args.value,
          cwd: cwd.trim() || undefined,
          env: Object.fromEntries(given.map((r) => [r.name, r.value])),
        },
        readerMode,
        maxFrameBytes,
        ...(hostProfile ? { hostProfile } : {}),
      },
      keptEnvNames(env),
    );
  };

  return (
    <form
      className="custom-form"
      data-testid="custom-server-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label>
        <span>command</span>
        <input
          className="mono"
          value={command}
          placeholder="node, npx, python3, /path/to/server"
          spellCheck={false}
          data-testid="custom-command"
          onChange={(e) => setCommand(e.target.value)}
        />
      </label>
      <label>
        <span className="label-row">
          args
          <Segmented
            label="argument syntax"
            options={['lines', 'shell'] as const}
            value={argsMode}
            onChange={setArgsMode}
            testIdPrefix="args-mode-"
          />
        </span>
        <textarea
          className="mono"
          rows={3}
          value={argsText}
          spellCheck={false}
          data-testid="custom-args"
          placeholder={
            argsMode === 'lines'
              ? 'one argument per line'
              : `server.js --name 'with spaces'  (quotes group; nothing expands)`
          }
          onChange={(e) => setArgsText(e.target.value)}
        />
      </label>
      <div className="form-row">
        <label>
          <span>name</span>
          <input
            value={name}
            placeholder="(from the command)"
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label>
          <span>cwd</span>
          <input
            className="mono"
            value={cwd}
            placeholder="(host default)"
            spellCheck={false}
            onChange={(e) => setCwd(e.target.value)}
          />
        </label>
      </div>
      <fieldset className="env">
        <legend>environment</legend>
        <EnvRows rows={env} onChange={setEnv} />
      </fieldset>
      <div className="form-row">
        <div className="control">
          <span className="control-label">reader</span>
          <Segmented
            label="reader mode"
            options={READER_MODES}
            value={readerMode}
            onChange={setReaderMode}
          />
        </div>
        <label className="control">
          <span className="control-label">max frame</span>
          <input
            className="mono num-input"
            value={maxFrameMiB}
            inputMode="decimal"
            onChange={(e) => setMaxFrameMiB(e.target.value)}
          />
          <span className="control-unit">MiB</span>
        </label>
      </div>
      <HostProfileSelect
        value={hostProfile}
        testId="custom-host-profile"
        onChange={(id) => {
          setHostProfile(id);
          // The profile's line cap is what it would apply: show it in the field it fills.
          setMaxFrameMiB(maxFrameMiBFor(id));
        }}
      />
      <CommandPreview argv={argv} cwd={cwd.trim() || undefined} envNames={envNames} />
      <div className="form-actions">
        <span className="muted small-text">
          {problem ?? 'This exact argv will be spawned, without a shell.'}
        </span>
        <button
          type="submit"
          className="primary"
          data-testid="custom-start"
          disabled={problem !== null || start.pending}
        >
          {start.pending ? 'Starting…' : submitLabel}
        </button>
      </div>
      <ErrorText message={start.error} />
    </form>
  );
}
