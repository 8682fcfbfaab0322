/**
 * A trace's first line: what was recorded (the server's command, args and environment, redacted),
 * the session's config, the recording budget, redaction as of now, process evidence's
 * availability. Pure but for the clock; the recorder writes it, and again at its end with the
 * final redaction counts.
 */
import { TRACE_FORMAT, TRACE_VERSION, type TraceHeader } from '../../../shared/trace-format.js';
import type { Session } from '../session/session.js';
import { processAvailabilityOf } from './process-event.js';
import type { Redactor } from './redact.js';

export function traceHeader(session: Session, r: Redactor, budgetBytes: number): TraceHeader {
  const { command, args, cwd, env, ...config } = session.config;
  // env first: its values become secrets that args and command must not show either.
  const redactedEnv = r.env(env);
  return {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    startedAt: Math.round(Date.now() - session.now()),
    server: {
      command: r.command(command),
      args: r.args(args),
      cwd: cwd ?? null,
      env: redactedEnv,
    },
    config: structuredClone(config),
    recordingBudgetBytes: budgetBytes,
    redacted: r.enabled,
    ...(r.enabled ? { redaction: r.summary(false) } : {}),
    recorder: { name: 'pipescope', version: '0.1.0' },
    process: processAvailabilityOf(session.evidence.info()),
  };
}
