/**
 * Deliberate misbehaviour: reader mode, consumer delay, overload policy, oversize policy and the
 * frame limit of a running session. Values show what the host last confirmed (info).
 */
import { type ReactElement, useEffect, useState } from 'react';
import {
  OPTION_LIMITS,
  type OverloadPolicy,
  type OversizePolicy,
  type ReaderMode,
} from '../../../shared/session-options';
import { formatBytes } from '../../components/format';
import { Segmented } from '../../components/Segmented';
import { useApp } from '../../store';
import type { SessionActions } from '../session/useSessionActions';

const READER_MODES = ['drain', 'paused', 'naive'] as const satisfies readonly ReaderMode[];
/** What the non-default reader modes do, in plain words (DESIGN.md "Reader modes"). */
const READER_HINTS: Record<ReaderMode, string | null> = {
  drain: null,
  paused: 'stdout unread: the server blocks once the pipe fills',
  naive: 'reads only when the consumer is done (anti-pattern)',
};
const OVERLOAD = ['drop', 'pause', 'terminate'] as const satisfies readonly OverloadPolicy[];
const OVERSIZE = ['discard', 'terminate'] as const satisfies readonly OversizePolicy[];

export function DemoControls({
  sessionId,
  actions,
}: {
  sessionId: string;
  actions: SessionActions;
}): ReactElement | null {
  const info = useApp((s) => s.bySession[sessionId]?.info);
  if (!info) return null;
  const disabled = info.state !== 'running';
  return (
    <div className="controls" data-testid="demo-controls" data-reader={info.readerMode}>
      <div className="control">
        <span className="control-label" title="p toggles paused / drain">
          reader
        </span>
        <Segmented
          label="reader mode"
          options={READER_MODES}
          value={info.readerMode}
          disabled={disabled}
          testIdPrefix="reader-"
          onChange={(mode) => void actions.setReaderMode(mode)}
        />
      </div>
      <NumberControl
        label="consumer delay"
        unit="ms/msg"
        testId="consumer-delay"
        value={info.consumerDelayMs}
        disabled={disabled}
        min={0}
        max={OPTION_LIMITS.consumerDelayMs}
        onApply={(ms) => void actions.setConsumerDelay(ms)}
      />
      <label className="control">
        <span className="control-label">overload</span>
        <select
          value={info.overloadPolicy}
          disabled={disabled}
          data-testid="overload-policy"
          onChange={(e) =>
            void actions.setLimits({ overloadPolicy: e.target.value as OverloadPolicy })
          }
        >
          {OVERLOAD.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <label className="control">
        <span className="control-label">oversize</span>
        <select
          value={info.onOversize}
          disabled={disabled}
          data-testid="on-oversize"
          onChange={(e) => void actions.setLimits({ onOversize: e.target.value as OversizePolicy })}
        >
          {OVERSIZE.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <NumberControl
        label="max frame"
        unit="bytes"
        testId="max-frame-bytes"
        value={info.maxFrameBytes}
        hint={formatBytes(info.maxFrameBytes)}
        disabled={disabled}
        min={1}
        max={2 ** 31}
        onApply={(maxFrameBytes) => void actions.setLimits({ maxFrameBytes })}
      />
      {/* Always present, one line, last: the hint never moves the controls. */}
      <span
        className="control-hint"
        data-testid="reader-hint"
        title={READER_HINTS[info.readerMode] ?? undefined}
      >
        {READER_HINTS[info.readerMode]}
      </span>
    </div>
  );
}

interface NumberControlProps {
  label: string;
  unit: string;
  testId: string;
  value: number;
  hint?: string;
  disabled: boolean;
  min: number;
  max: number;
  onApply(value: number): void;
}

/** A number applied on Enter or blur; shows the confirmed value again when the host changes it. */
function NumberControl({
  label,
  unit,
  testId,
  value,
  hint,
  disabled,
  min,
  max,
  onApply,
}: NumberControlProps): ReactElement {
  const [text, setText] = useState(String(value));
  useEffect(() => setText(String(value)), [value]);
  const n = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(n) && n >= min && n <= max;
  const apply = (): void => {
    if (valid && n !== value) onApply(n);
    else if (!valid) setText(String(value));
  };
  return (
    <label className="control" data-invalid={!valid}>
      <span className="control-label">{label}</span>
      <input
        type="text"
        inputMode="numeric"
        className="mono num-input"
        value={text}
        disabled={disabled}
        data-testid={testId}
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => {
          if (e.key === 'Enter') apply();
          if (e.key === 'Escape') setText(String(value));
        }}
      />
      <span className="control-unit">{hint ?? unit}</span>
    </label>
  );
}
