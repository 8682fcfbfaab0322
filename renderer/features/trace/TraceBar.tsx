/**
 * The trace view's bar: TRACE badge, file and recorded command, the timeline scrubber (a range
 * over [0, duration] with finding and cancellation markers; dragging seeks), play/pause at 1× or
 * 10×, the exports and "Replay trace against…". Shown instead of the live controls.
 */
import './trace.css';
import { type ReactElement, useEffect, useRef, useState } from 'react';
import type { SessionInfo } from '../../../shared/session-info';
import { formatBytes } from '../../components/format';
import { Segmented } from '../../components/Segmented';
import { useApp } from '../../store';
import { formatArgv } from '../start/argv';
import { ExportButtons } from './ExportButtons';
import { ReplayForm } from './ReplayForm';
import {
  clampT,
  formatTraceTime,
  PLAY_SPEEDS,
  type PlaySpeed,
  percentAt,
  playStep,
  sliderStep,
  sliderToT,
} from './scrubber';
import { useTraceSeek } from './useTraceSeek';

const PLAY_TICK_MS = 100;

export function TraceBar({ sessionId }: { sessionId: string }): ReactElement | null {
  const info = useApp((s) => s.bySession[sessionId]?.info);
  const trace = info?.trace ?? null;
  const seeker = useTraceSeek(sessionId);
  const [pos, setPos] = useState<number | null>(null);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<PlaySpeed>('1×');
  const posRef = useRef(0);
  const duration = trace?.durationMs ?? 0;
  const shown = pos ?? trace?.t ?? 0;
  posRef.current = shown;

  const seekTo = (t: number): void => {
    const next = clampT(t, duration);
    setPos(next);
    seeker.request(next);
  };

  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      const step = playStep(posRef.current, PLAY_TICK_MS, speed, duration);
      setPos(step.t);
      seeker.request(step.t);
      if (step.ended) setPlaying(false);
    }, PLAY_TICK_MS);
    return () => clearInterval(timer);
  }, [playing, speed, duration, seeker]);

  if (!info || !trace) return null;
  return (
    <section
      className="trace-bar"
      data-testid="trace-bar"
      data-t={trace.t}
      data-duration={duration}
    >
      <div className="trace-head">
        <span className="trace-badge" data-testid="trace-badge">
          TRACE
        </span>
        <strong className="trace-file" data-testid="trace-file" title={trace.path}>
          {trace.fileName}
        </strong>
        <span className="muted small-text">
          {formatBytes(trace.fileBytes)} · recorded {new Date(trace.recordedAt).toLocaleString()}
          {trace.reconstructed ? ' · no end record (report rebuilt from events)' : ''}
          {trace.skippedLines > 0 ? ` · ${trace.skippedLines} unreadable lines skipped` : ''}
        </span>
        <code className="argv" data-testid="trace-command">
          {formatArgv([info.command, ...info.args])}
        </code>
        <RedactionNote redaction={trace.redaction} />
      </div>
      <div className="trace-scrub">
        <button
          type="button"
          className="small"
          data-testid="trace-play"
          data-state={playing ? 'playing' : 'paused'}
          onClick={() => {
            if (!playing && shown >= duration) seekTo(0);
            setPlaying(!playing);
          }}
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <Segmented
          label="Playback speed"
          options={PLAY_SPEEDS}
          value={speed}
          onChange={setSpeed}
          testIdPrefix="trace-speed-"
        />
        <div className="scrub-track">
          <input
            type="range"
            aria-label="Trace time"
            data-testid="trace-scrubber"
            min={0}
            max={duration}
            step={sliderStep(duration)}
            value={shown}
            onChange={(e) => seekTo(sliderToT(Number(e.target.value), duration))}
          />
          <div className="scrub-markers" aria-hidden="true">
            {trace.markers.map((m) => (
              <button
                type="button"
                tabIndex={-1}
                key={`${m.kind}:${m.label}:${m.t}`}
                className="scrub-marker"
                data-kind={m.kind}
                data-level={m.level ?? undefined}
                style={{ left: `${percentAt(m.t, duration)}%` }}
                title={`${m.label} at ${formatTraceTime(m.t)}`}
                onClick={() => seekTo(m.t)}
              />
            ))}
          </div>
        </div>
        <span className="scrub-time mono" data-testid="trace-time">
          {formatTraceTime(shown)} / {formatTraceTime(duration)}
        </span>
      </div>
      <div className="trace-tools">
        <ExportButtons target={{ traceId: sessionId }} />
        <ReplayForm traceId={sessionId} command={info.command} args={info.args} />
      </div>
    </section>
  );
}

/** What the trace's redaction replaced and why, per rule (its header says so). */
function RedactionNote({
  redaction,
}: {
  redaction: NonNullable<SessionInfo['trace']>['redaction'];
}): ReactElement | null {
  if (!redaction) return null;
  if (!redaction.redacted)
    return (
      <span className="tag record-unredacted" data-testid="trace-redaction" data-redacted="false">
        not redacted: exact bytes, secrets included
      </span>
    );
  const used = redaction.rules.filter((r) => r.count > 0);
  // A trace recorded before redaction was counted has no rules at all.
  const words =
    redaction.rules.length === 0
      ? '(not counted in this trace)'
      : used.length
        ? used.map((r) => `${r.count.toLocaleString('en-US')} ${r.rule}`).join(', ')
        : 'nothing needed it';
  const title = [
    'Redacted (replaced by ***): only what is known to be secret; ordinary payload text is kept.',
    ...redaction.rules.map((r) => `${r.rule}: ${r.count} (${r.why})`),
    redaction.final ? '' : 'Counts as of the start: the recording did not finish.',
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span
      className="muted small-text"
      data-testid="trace-redaction"
      data-redacted="true"
      title={title}
    >
      redacted: {words}
    </span>
  );
}
