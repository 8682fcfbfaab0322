/**
 * The probe report written for people (without --json): what ran, the counters that matter,
 * the requests, and each finding with its plain-words explanation. The report itself is
 * shared/probe-report.ts.
 */
import { FINDING_EXPLANATIONS } from '../../shared/findings.js';
import { hostProfile, hostsBroken } from '../../shared/host-profiles.js';
import type { ReportRequest } from '../../shared/requests.js';
import type { ProbeOutcome } from './probe.js';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

/** What the result audit found in an answer, in two or three lines. */
function auditLines(q: ReportRequest): string[] {
  const a = q.audit;
  if (!a) return [];
  const blocks = a.blocks.map((b) => `${b.count} ${b.kind} (${bytes(b.bytes)})`).join(', ');
  const out = [
    `       result: ${a.isError ? 'isError, ' : ''}${blocks || 'no content blocks'}; ` +
      `≈${a.estimatedTokens.toLocaleString('en-US')} tokens` +
      (a.structuredBytes === null ? '' : `; structuredContent ${bytes(a.structuredBytes)}`) +
      (a.duplicatedBytes > 0 ? `, ${bytes(a.duplicatedBytes)} of it text sent twice` : ''),
    `       ${a.incomplete.length > 0 ? `says it is incomplete: ${a.incomplete.join(', ')}` : 'does not say it is incomplete'}` +
      (a.base64.count > 0
        ? `; ${a.base64.count} base64 run(s) in text, ${bytes(a.base64.bytes)}`
        : ''),
  ];
  const breaks = hostsBroken(a);
  if (breaks.length > 0) out.push(`       breaks: ${breaks.map((b) => b.name).join(', ')}`);
  if (a.partial) out.push(`       body not audited: ${a.partial}`);
  return out;
}

/** `command`: what made the report: `probe` ran the server, `report` read a trace. */
export function formatReportText(o: ProbeOutcome, command: 'probe' | 'report' = 'probe'): string {
  const r = o.report;
  const m = r.metrics;
  const lines: string[] = [];
  const cmd = [r.server.command, ...r.server.args].map((a) =>
    /\s/.test(a) ? JSON.stringify(a) : a,
  );
  lines.push(`pipescope ${command}: ${cmd.join(' ')}`);
  const exit = r.server.exit
    ? r.server.exit.signal
      ? `killed by ${r.server.exit.signal}`
      : `exit code ${r.server.exit.code}`
    : 'still running?';
  lines.push(`  pid ${r.server.pid}, ${exit}`);
  if (o.hostProfile) {
    lines.push(`  host profile: ${hostProfile(o.hostProfile).name} (--host ${o.hostProfile})`);
  }
  lines.push('', 'Steps');
  for (const s of o.steps) lines.push(`  - ${s}`);
  lines.push('', 'Pipe');
  lines.push(
    `  stdout ${bytes(m.stdoutBytes)} in ${m.frames} frame(s), largest ${bytes(m.largestFrameBytes)}; stderr ${bytes(m.stderrBytes)}`,
  );
  lines.push(
    `  parse errors ${m.parseErrors}, oversize ${m.oversizeFrames}, partial at EOF ${bytes(m.partialBytesAtEof)}`,
  );
  lines.push(
    `  dispatcher wait ${m.dispatcherWaitMs} ms (max depth ${m.dispatcherMaxDepth}); stdin ${bytes(m.stdinBytes)}, waited ${m.stdinWaitMs} ms`,
  );
  const dropped = o.counters?.droppedFrames ?? 0;
  if (dropped > 0) {
    lines.push(
      `  dropped by the overload policy: ${dropped} frame(s), ${bytes(o.counters?.droppedBytes ?? 0)}`,
    );
  }
  lines.push(
    `  cancellations sent ${m.cancellationsSent}, late responses ${m.lateResponses}, process exits ${m.processExits}`,
  );
  lines.push('', 'Requests');
  for (const q of r.requests) {
    const lat = q.latencyMs === null ? '-' : `${q.latencyMs} ms`;
    const size = q.responseBytes === null ? '' : `, ${bytes(q.responseBytes)}`;
    const read = q.hostReadMs === undefined ? '' : `, the host took ${q.hostReadMs} ms to read it`;
    lines.push(
      `  ${String(q.id).padStart(4)} ${q.method.padEnd(28)} ${q.status.padEnd(10)} ${lat}${size}${read}`,
    );
    if (q.error) lines.push(`       error ${q.error.code}: ${q.error.message}`);
    lines.push(...auditLines(q));
  }
  const pending = r.requests.filter((q) => q.status === 'pending');
  if (pending.length)
    lines.push(`  still pending at the end: ${pending.map((q) => q.id).join(', ')}`);
  if (r.recovery) {
    lines.push(
      '',
      `Recovery: ${r.recovery.method} ${r.recovery.ok ? `ok in ${r.recovery.latencyMs} ms` : 'FAILED'}`,
    );
  }
  lines.push(
    '',
    r.process.available
      ? `Process evidence: ${r.process.samples} sample(s) of the server's tree`
      : `Process evidence: not available (${r.process.reason ?? 'unknown'})`,
  );
  lines.push('', r.findings.length ? 'Findings' : 'Findings: none');
  for (const f of r.findings) {
    lines.push(`  [${f.level}] ${f.code}: ${f.message}`);
    lines.push(`      ${FINDING_EXPLANATIONS[f.code]}`);
  }
  if (o.pollution.length) {
    lines.push('', 'stdout pollution (offset, preview)');
    for (const p of o.pollution.slice(0, 5))
      lines.push(`  @${p.offset}: ${JSON.stringify(p.preview)}`);
  }
  if (o.stderrTail.length) {
    lines.push('', 'stderr (last lines)');
    for (const l of o.stderrTail) lines.push(`  ${l.length > 200 ? `${l.slice(0, 200)}…` : l}`);
  }
  return `${lines.join('\n')}\n`;
}
