/**
 * "Replay trace against…": re-sends the trace's client messages to a server (by default the
 * recorded command) with `trace:replay` and shows what changed: responses, sizes, latency then
 * vs now, findings now vs then.
 */
import { type ReactElement, useState } from 'react';
import type { ReplayReport } from '../../../shared/trace-api';
import { useHost } from '../../app/host-context';
import { ErrorText } from '../../components/ErrorText';
import { formatBytes, formatMs } from '../../components/format';
import { useAsyncAction } from '../../components/useAsyncAction';
import { formatArgv, splitShellLike } from '../start/argv';

export function ReplayForm({
  traceId,
  command,
  args,
}: {
  traceId: string;
  command: string;
  args: string[];
}): ReactElement {
  const host = useHost();
  const [line, setLine] = useState(() => formatArgv([command, ...args]));
  const [timing, setTiming] = useState<'fast' | 'recorded'>('fast');
  const [result, setResult] = useState<ReplayReport | null>(null);
  const action = useAsyncAction(async () => {
    const argv = splitShellLike(line);
    if (!argv.ok) return argv;
    if (argv.value.length === 0)
      return { ok: false as const, error: { code: 'EINVAL', message: 'type a command' } };
    setResult(null);
    const r = await host.invoke('trace:replay', {
      traceId,
      command: argv.value[0],
      args: argv.value.slice(1),
      timing,
    });
    if (r.ok) setResult(r.value);
    return r;
  });
  return (
    <details className="replay-form" data-testid="replay-form">
      <summary>Replay trace against…</summary>
      <form
        className="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run();
        }}
      >
        <input
          className="mono grow"
          aria-label="Server command"
          data-testid="replay-command"
          value={line}
          onChange={(e) => setLine(e.target.value)}
        />
        <select
          aria-label="Timing"
          value={timing}
          onChange={(e) => setTiming(e.target.value === 'recorded' ? 'recorded' : 'fast')}
        >
          <option value="fast">back to back</option>
          <option value="recorded">recorded timing</option>
        </select>
        <button
          type="submit"
          className="small"
          data-testid="replay-run"
          data-state={action.pending ? 'running' : 'idle'}
          disabled={action.pending}
        >
          {action.pending ? 'Replaying…' : 'Replay'}
        </button>
      </form>
      {action.pending ? (
        <p className="muted small-text" data-testid="replay-waiting">
          Starting the server, then sending the trace's messages{' '}
          {timing === 'recorded' ? 'at their recorded times' : 'back to back'}; each waits for the
          answers it depended on, at most 10 s each.
        </p>
      ) : null}
      <ErrorText message={action.error} />
      {result ? <ReplayResultView result={result} /> : null}
    </details>
  );
}

function ReplayResultView({ result }: { result: ReplayReport }): ReactElement {
  const changed = result.requests.filter(
    (r) => r.response !== 'same' || r.statusThen !== r.statusNow,
  );
  const f = result.findings;
  return (
    <div
      className="replay-result"
      data-testid="replay-result"
      data-differences={result.differences}
    >
      <p>
        <strong>{result.differences}</strong> difference{result.differences === 1 ? '' : 's'} ·{' '}
        {result.requests.length} request(s) replayed ({result.timing})
        {result.startError ? <span className="error-text"> · {result.startError}</span> : null}
      </p>
      {f.added.length || f.removed.length ? (
        <p className="small-text">
          findings now vs then:{' '}
          {f.added.map((c) => (
            <span key={`+${c}`} className="tag" data-kind="added">
              +{c}
            </span>
          ))}
          {f.removed.map((c) => (
            <span key={`-${c}`} className="tag" data-kind="removed">
              −{c}
            </span>
          ))}
        </p>
      ) : (
        <p className="muted small-text">
          same findings as recorded ({f.recorded.join(', ') || 'none'})
        </p>
      )}
      <table className="replay-table">
        <thead>
          <tr>
            <th>id</th>
            <th>method</th>
            <th>response</th>
            <th>status then → now</th>
            <th className="num">size Δ</th>
            <th className="num">latency then → now</th>
          </tr>
        </thead>
        <tbody>
          {(changed.length ? changed : result.requests).slice(0, 100).map((r) => (
            <tr key={String(r.oldId)} data-response={r.response}>
              <td className="mono">{String(r.oldId)}</td>
              <td className="mono">{r.method}</td>
              <td>{r.response}</td>
              <td>
                {r.statusThen ?? '—'} → {r.statusNow ?? '—'}
              </td>
              <td className="num">
                {r.bytesDelta === null
                  ? '—'
                  : `${r.bytesDelta > 0 ? '+' : r.bytesDelta < 0 ? '−' : ''}${formatBytes(Math.abs(r.bytesDelta))}`}
              </td>
              <td className="num">
                {formatMs(r.latencyThenMs)} → {formatMs(r.latencyNowMs)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {result.notes.length ? (
        <ul className="muted small-text">
          {result.notes.slice(0, 10).map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
