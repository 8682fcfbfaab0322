import type { ProbeReport } from '../../../shared/probe-report.js';
import type { JsonRpcId, RequestStatus } from '../../../shared/requests.js';
import type {
  ReplayRequestView as ReplayRequestDiff,
  ReplayRequestView,
  ReplayReport as ReplayResult,
} from '../../../shared/trace-api.js';
import { buildProbeReport } from '../session/build-report.js';
import type { TraceReader } from './reader.js';
import { Redactor } from './redact.js';
import {
  type CapturedResponse,
  idKey,
  planReplay,
  type RecordedResponse,
  type ReplayOptions,
  type ReplayPlan,
  runReplay,
} from './replay.js';
import { summarizeTrace } from './summary.js';

// The replay result is a HostApi payload too: its types live once, in shared/trace-api.ts.
export type {
  ReplayReport as ReplayResult,
  ReplayRequestView as ReplayRequestDiff,
} from '../../../shared/trace-api.js';
export type ResponseVerdict = ReplayRequestView['response'];

export interface DiffInput {
  reader: TraceReader;
  plan: ReplayPlan;
  recordedReport: ProbeReport;
  newReport: ProbeReport;
  /** Old id key → new id, status, latency. */
  newRequests: Map<string, { id: JsonRpcId; status: RequestStatus; latencyMs: number | null }>;
  newResponses: Map<string, CapturedResponse>;
}

/** Plans, runs and compares a replay of the trace against a new server (CLI and app). */
export async function replayTrace(reader: TraceReader, o: ReplayOptions): Promise<ReplayResult> {
  const recorded = await summarizeTrace(reader);
  const plan = await planReplay(reader);
  const run = await runReplay(reader, plan, o);
  const newRequests = new Map(
    [...run.sent].map(([key, sent]) => {
      const r = run.session.requests.get(sent.id);
      const status: RequestStatus = r?.status ?? 'pending';
      return [key, { id: sent.id, status, latencyMs: r?.latencyMs ?? null }] as const;
    }),
  );
  const diff = await diffReplay({
    reader,
    plan,
    recordedReport: recorded.report,
    newReport: buildProbeReport(run.session),
    newRequests,
    newResponses: run.responses,
  });
  return {
    trace: reader.path,
    command: o.command,
    args: o.args,
    timing: o.timing,
    notes: [...plan.notes, ...run.notes],
    startError: run.startError,
    ...diff,
  };
}

export async function diffReplay(
  d: DiffInput,
): Promise<Omit<ReplayResult, 'trace' | 'command' | 'args' | 'timing' | 'notes' | 'startError'>> {
  const requests: ReplayRequestDiff[] = [];
  let differences = 0;
  for (const step of d.plan.steps) {
    if (step.kind !== 'request') continue;
    const key = idKey(step.oldId);
    const then = d.plan.records.get(key);
    const now = d.newRequests.get(key);
    const recorded = d.plan.responses.get(key);
    const fresh = now ? d.newResponses.get(idKey(now.id)) : undefined;
    const verdict = await compare(d.reader, step.oldId, now?.id ?? null, recorded, fresh);
    const statusChanged = normalStatus(then?.status) !== normalStatus(now?.status);
    if (verdict === 'changed' || verdict === 'missing' || verdict === 'new' || statusChanged)
      differences += 1;
    const bytesThen = recorded?.bytes ?? null;
    const bytesNow = fresh?.bytes ?? null;
    requests.push({
      oldId: step.oldId,
      newId: now?.id ?? null,
      method: step.method,
      statusThen: then?.status ?? null,
      statusNow: now?.status ?? null,
      bytesThen,
      bytesNow,
      bytesDelta: bytesThen !== null && bytesNow !== null ? bytesNow - bytesThen : null,
      latencyThenMs: then?.latencyMs == null ? null : round1(then.latencyMs),
      latencyNowMs: now?.latencyMs == null ? null : round1(now.latencyMs),
      response: verdict,
    });
  }
  const thenCodes = d.recordedReport.findings.map((f) => f.code);
  const nowCodes = d.newReport.findings.map((f) => f.code);
  const added = nowCodes.filter((c) => !thenCodes.includes(c));
  const removed = thenCodes.filter((c) => !nowCodes.includes(c));
  differences += added.length + removed.length;
  return {
    requests,
    findings: { recorded: thenCodes, replayed: nowCodes, added, removed },
    differences,
    report: d.newReport,
  };
}

/** A timeout sends a cancellation: replayed, it is a cancellation again. */
function normalStatus(s: RequestStatus | undefined): string {
  if (s === undefined) return 'absent';
  return s === 'timed-out' ? 'cancelled' : s;
}

async function compare(
  reader: TraceReader,
  oldId: JsonRpcId,
  newId: JsonRpcId | null,
  recorded: RecordedResponse | undefined,
  fresh: CapturedResponse | undefined,
): Promise<ResponseVerdict> {
  if (!recorded && !fresh) return 'none';
  if (!fresh) return 'missing';
  if (!recorded) return 'new';
  if (!recorded.truncated) {
    const e = await reader.read(recorded.index);
    const thenText = e?.type === 'frame' ? (e.text ?? null) : null;
    if (thenText !== null && fresh.text !== null) {
      const nowText = recorded.redacted
        ? new Redactor({ enabled: true }).text(fresh.text)
        : fresh.text;
      return normalize(thenText, oldId) === normalize(nowText, oldId) ? 'same' : 'changed';
    }
  }
  if (recorded.sha256 && fresh.sha256 && newId !== null && String(newId) === String(oldId))
    return recorded.sha256 === fresh.sha256 ? 'same' : 'changed';
  return recorded.bytes === fresh.bytes ? 'unknown' : 'changed';
}

/** The response's content with its id set to the old one (parsed and re-serialised). */
function normalize(text: string, oldId: JsonRpcId): string {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (v && typeof v === 'object' && !Array.isArray(v)) v.id = oldId;
    return JSON.stringify(v);
  } catch {
    return text;
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** The readable replay report. */
export function formatReplay(r: ReplayResult): string {
  const lines: string[] = [];
  const cmd = [r.command, ...r.args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
  lines.push(`pipescope replay: ${r.trace} → ${cmd} (timing ${r.timing})`);
  if (r.startError) lines.push(`  could not start: ${r.startError}`);
  lines.push('', 'Requests (then → now)');
  for (const q of r.requests) {
    const lat = (ms: number | null): string => (ms === null ? '-' : `${ms} ms`);
    const size = (b: number | null): string => (b === null ? '-' : `${b} B`);
    const delta = q.bytesDelta ? ` (${q.bytesDelta > 0 ? '+' : ''}${q.bytesDelta} B)` : '';
    lines.push(
      `  ${String(q.oldId).padStart(4)}→${String(q.newId ?? '-').padEnd(4)} ${q.method.padEnd(24)} ` +
        `${q.statusThen ?? '-'} → ${q.statusNow ?? '-'}; response ${q.response}: ` +
        `${size(q.bytesThen)} → ${size(q.bytesNow)}${delta}; latency ${lat(q.latencyThenMs)} → ${lat(q.latencyNowMs)}`,
    );
  }
  const f = r.findings;
  lines.push('', `Findings then: ${f.recorded.join(', ') || 'none'}`);
  lines.push(`Findings now:  ${f.replayed.join(', ') || 'none'}`);
  if (f.added.length) lines.push(`  new now: ${f.added.join(', ')}`);
  if (f.removed.length) lines.push(`  gone now: ${f.removed.join(', ')}`);
  if (r.notes.length) {
    lines.push('', 'Notes');
    for (const n of r.notes) lines.push(`  - ${n}`);
  }
  lines.push(
    '',
    r.differences
      ? `${r.differences} difference(s) between the trace and the replay`
      : 'No differences: the server answered as recorded',
  );
  return `${lines.join('\n')}\n`;
}
