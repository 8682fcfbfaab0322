/**
 * Compose a request: pick a tool from tools/list, fill its arguments, send; or ping. The answer
 * of the last call made here is shown under the form (features/results CallAnswer).
 */
import './composer.css';
import { type ReactElement, useCallback, useState } from 'react';
import type { JsonRpcId } from '../../../shared/requests';
import { ErrorText } from '../../components/ErrorText';
import { Panel } from '../../components/Panel';
import { useAsyncAction } from '../../components/useAsyncAction';
import { useApp } from '../../store';
import { CallAnswer } from '../results/CallAnswer';
import type { SessionActions } from '../session/useSessionActions';
import { type ArgsState, ArgumentsEditor } from './ArgumentsEditor';

export function RequestComposer({
  sessionId,
  actions,
}: {
  sessionId: string;
  actions: SessionActions;
}): ReactElement {
  const tools = useApp((s) => s.bySession[sessionId]?.info.tools);
  const running = useApp((s) => s.bySession[sessionId]?.info.state === 'running');
  const [toolName, setToolName] = useState<string | null>(null);
  const [args, setArgs] = useState<ArgsState>({ args: {} });
  const [lastCall, setLastCall] = useState<JsonRpcId | null>(null);
  const send = useAsyncAction(actions.callTool);
  const ping = useAsyncAction(actions.ping);
  const onArgs = useCallback((state: ArgsState) => setArgs(state), []);

  const list = tools ?? [];
  const tool = list.find((t) => t.name === toolName) ?? list[0] ?? null;
  const argsError = 'error' in args ? args.error : null;

  return (
    <Panel
      title="Compose"
      className="composer-panel"
      testId="composer"
      actions={
        <button
          type="button"
          className="small"
          data-testid="ping"
          disabled={!running || ping.pending}
          onClick={() => void ping.run()}
        >
          Ping
        </button>
      }
    >
      {list.length === 0 ? (
        <p className="muted small-text">No tools yet (tools/list has not answered).</p>
      ) : (
        <form
          className="composer"
          onSubmit={(e) => {
            e.preventDefault();
            if (!tool || !('args' in args)) return;
            void send.run(tool.name, args.args).then((r) => {
              if (r?.ok) setLastCall(r.value.requestId);
            });
          }}
        >
          <label className="composer-tool">
            <span>tool</span>
            <select
              value={tool?.name ?? ''}
              data-testid="tool-select"
              onChange={(e) => setToolName(e.target.value)}
            >
              {list.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          {tool?.description ? <p className="tool-description">{tool.description}</p> : null}
          {tool ? (
            <ArgumentsEditor key={`${sessionId}:${tool.name}`} tool={tool} onChange={onArgs} />
          ) : null}
          <div className="composer-actions">
            <span className="muted small-text">{argsError}</span>
            <button
              type="submit"
              className="primary"
              data-testid="send-tool"
              disabled={!running || !tool || argsError !== null || send.pending}
            >
              Call {tool?.name}
            </button>
          </div>
          <ErrorText message={send.error ?? ping.error} />
        </form>
      )}
      {lastCall !== null ? <CallAnswer sessionId={sessionId} requestId={lastCall} /> : null}
    </Panel>
  );
}
