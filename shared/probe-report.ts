/**
 * The `pipescope probe --json` report: a public contract (DESIGN.md), exactly these keys. One
 * shape, made in two places and printed in one: from a live session by
 * electron/engine/session/build-report.ts, rebuilt from a trace file by
 * electron/engine/trace/summary.ts, and written for people by electron/cli/report-text.ts.
 */
import type { Finding } from './findings.js';
import type { ReportMetrics } from './metrics.js';
import type { ReportRequest } from './requests.js';

export interface ProbeReport {
  server: {
    command: string;
    args: string[];
    pid: number | null;
    exit: { code: number | null; signal: string | null } | null;
  };
  metrics: ReportMetrics;
  requests: ReportRequest[];
  recovery: { method: string; ok: boolean; latencyMs: number | null } | null;
  findings: Finding[];
  /** Whether process evidence was had (and why not), and how many samples were taken. */
  process: { available: boolean; reason?: string; samples: number };
}
