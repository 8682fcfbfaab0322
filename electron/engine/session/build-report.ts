/**
 * The `probe --json` report (shared/probe-report.ts) of a live session, exactly its keys; and
 * the exit status it implies. (From a trace file: trace/summary.ts.)
 */
import { toReportMetrics } from '../../../shared/metrics.js';
import type { ProbeReport } from '../../../shared/probe-report.js';
import type { Session } from './session.js';

export function buildProbeReport(session: Session): ProbeReport {
  const m = session.liveMetrics();
  return {
    server: {
      command: session.config.command,
      args: [...session.config.args],
      pid: session.pid,
      exit: session.exit ? { code: session.exit.code, signal: session.exit.signal } : null,
    },
    metrics: toReportMetrics(m),
    requests: session.requests.all().map((r) => ({
      id: r.id,
      method: r.method,
      status: r.status,
      latencyMs: r.latencyMs === null ? null : Math.round(r.latencyMs * 10) / 10,
      responseBytes: r.responseBytes,
      ...(r.status === 'failed' && r.error ? { error: r.error } : {}),
      ...(r.hostReadMs !== undefined && { hostReadMs: r.hostReadMs }),
      ...(r.audit !== undefined && { audit: r.audit }),
    })),
    recovery: session.recovery,
    findings: session.findings.forReport(),
    process: session.evidence.info(),
  };
}

/** 0: no error-level finding; 1: at least one (DESIGN.md exit status). */
export function exitStatusFor(report: ProbeReport): 0 | 1 {
  return report.findings.some((f) => f.level === 'error') ? 1 : 0;
}
