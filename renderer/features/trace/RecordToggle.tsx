/**
 * The Record toggle of a live session (`session:record`): off → recording to the default trace
 * path (the host answers with it) → finished when the session stops or the toggle is turned off.
 * Shows where the trace is, its size, and the exports once there is one. Its options (▾) offer
 * a recording without redaction, for a local trace that must replay exactly, with a warning:
 * such a trace keeps every secret and is marked "not redacted" while it shows.
 */
import './trace.css';
import { type ReactElement, useState } from 'react';
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
  const [options, setOptions] = useState(false);
  const start = (redact: boolean) => async () => {
    setOptions(false);
    const r = await host.invoke('session:record', { sessionId, record: !on, redact });
    if (!r.ok) appStore.getState().notify(`Record: ${r.error.message}`);
    else if (r.value.path && !on)
      appStore
        .getState()
        .notify(
          redact
            ? `Recording to ${r.value.path}`
            : `Recording WITHOUT redaction to ${r.value.path}: secrets stay in the file; do not share it`,
          'info',
        );
    return r;
  };
  const toggle = useAsyncAction(start(true));
  const exact = useAsyncAction(start(false));
  const state = on ? 'recording' : recording ? 'finished' : 'off';
  const unredacted = recording?.redacted === false;
  return (
    <span
      className="record"
      data-testid="record"
      data-state={state}
      data-redacted={recording ? String(!unredacted) : undefined}
    >
      {!on && live ? (
        <span className="record-options-anchor">
          <button
            type="button"
            className="small record-options"
            data-testid="record-options"
            aria-expanded={options}
            aria-label="Record options"
            title="Record options: without redaction"
            disabled={toggle.pending || exact.pending}
            onClick={() => setOptions(!options)}
          >
            ▾
          </button>
          {options ? (
            <span className="record-options-menu" role="dialog" aria-label="Record options">
              <strong>Record without redaction</strong>
              <span className="small-text">
                The trace keeps every byte as it was, secrets included: environment values, tokens,
                Authorization headers, API keys. Use it for a local trace that must replay exactly;
                never share it.
              </span>
              <span className="form-row">
                <button
                  type="button"
                  className="small danger"
                  data-testid="record-unredacted"
                  onClick={() => void exact.run()}
                >
                  Record exact trace
                </button>
                <button type="button" className="small" onClick={() => setOptions(false)}>
                  Cancel
                </button>
              </span>
            </span>
          ) : null}
        </span>
      ) : null}
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
          {unredacted ? (
            <span
              className="tag record-unredacted"
              data-testid="recording-unredacted"
              title="Recorded without redaction: secrets are in this file as they were. Do not share it."
            >
              not redacted
            </span>
          ) : null}
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
