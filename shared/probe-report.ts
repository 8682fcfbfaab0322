/** The `pipescope probe --json` report: a public contract (DESIGN.md), exactly these keys. */
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
}
