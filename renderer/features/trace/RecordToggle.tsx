/**
 * The Record toggle of a live session (`session:record`): off → recording to the default trace
 * path (the host answers with it) → finished when the session stops or the toggle is turned off.
 * Shows where the trace is, its size, and the exports once there is one.
 */
import './trace.css';
import type { ReactElement } from 'react';
import { useHost } from '../../app/host-context';
import { formatBytes } from '../../components/format';
import { useAsyncAction } from '../../components/useAsyncAction';
import { appStore, useApp } from '../../store';
import { ExportButtons } from './ExportButtons';

export function RecordToggle({ sessionId }: { sessionId: string }): ReactElement | null {
  const host = useHost();
  const recording = useApp((s) => s.bySession[sessionId]?.info.recording ?? null);
  const live = useApp((s) => {
    const state = s.bySession[sessionId]?.info.state;
    return state === 'running' || state === 'starting';
  });
  const on = recording?.active === true;
  const toggle = useAsyncAction(async () => {
    const r = await host.invoke('session:record', { sessionId, record: !on });
    if (!r.ok) appStore.getState().notify(`Record: ${r.error.message}`);
    else if (r.value.path && !on)
      appStore.getState().notify(`Recording to ${r.value.path}`, 'info');
    return r;
  });
  const state = on ? 'recording' : recording ? 'finished' : 'off';
  return (
    <span className="record" data-testid="record" data-state={state}>
      <button
        type="button"
        className="small record-toggle"
        data-testid="record-toggle"
        aria-pressed={on}
        disabled={toggle.pending || (!on && !live)}
        title={
          on ? 'Stop recording (the trace is finished)' : 'Record this session to a trace file'
        }
        onClick={() => void toggle.run()}
      >
        <span className="rec-dot" aria-hidden="true" />
        {on ? 'Recording' : 'Record'}
      </button>
      {recording ? (
        <>
          <code
            className="recording-path small-text"
            data-testid="recording-path"
            title={recording.path}
          >
            {recording.path}
          </code>
          <span className="muted small-text" data-testid="recording-bytes">
            {formatBytes(recording.bytes)}
            {on ? '' : ' · finished'}
          </span>
          <ExportButtons target={{ sessionId }} />
        </>
      ) : null}
    </span>
  );
}
