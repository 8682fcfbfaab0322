/**
 * A trace's summary: the same `probe --json` report (shared/probe-report.ts) the live session
 * printed, and what exports draw (pollution, charts).
 *
 * A trace that ended cleanly carries its report in `end`; one cut short (crash, kill, full
 * disk) has it rebuilt from the events: the last metrics sample, the last state of each
 * request, the findings folded exactly as the findings engine folds them for a report.
 * Reads only the small events (never frame text), so a 1 GiB trace reports in bounded memory;
 * process samples are kept compact (no threads, no stdio) and, past a cap, thinned like the
 * metrics samples.
 * Pure over a TraceReader; the CLI (`report`, `replay`, `export`) and the app use it.
 */
import { type Finding, foldByCode } from '../../../shared/findings.js';
import { emptyLiveMetrics, type LiveMetrics, toReportMetrics } from '../../../shared/metrics.js';
import type { ProbeReport } from '../../../shared/probe-report.js';
import { type ActivityKind, describeActivity } from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import type {
  TraceCancelEvent,
  TraceEndEvent,
  TraceExitEvent,
  TraceFindingEvent,
  TraceHeader,
  TraceMetricsEvent,
  TraceProcessEvent,
} from '../../../shared/trace-format.js';
import { processReportAt, traceProcessAvailability } from '../../../shared/trace-state.js';
import type { TraceReader } from './reader.js';

export interface TracePollution {
  t: number;
  offset: number;
  bytes: number;
  preview: string;
  problem: string;
}

/** One process of a recorded sample, as the exports draw it (no threads, no stdio). */
export interface SummaryProcess {
  pid: number;
  ppid: number;
  depth: number;
  command: string;
  state: string;
  kind: ActivityKind;
  /** The activity in words (describeActivity), without how long it lasted or the CPU share. */
  label: string;
  cpuPercent: number | null;
  writeRate: number | null;
}

export interface SummaryProcessSample {
  t: number;
  processes: SummaryProcess[];
}

export interface TraceSummary {
  header: TraceHeader;
  report: ProbeReport;
  /** True when the trace had no `end` and the report was rebuilt from the events. */
  reconstructed: boolean;
  startError: string | null;
  end: TraceEndEvent | null;
  /** Final state of every request, in the order they were sent. */
  requests: RequestRecord[];
  metrics: TraceMetricsEvent[];
  cancels: TraceCancelEvent[];
  findings: TraceFindingEvent[];
  /** The recorded process samples, compact; thinned past MAX_PROCESS_SAMPLES. */
  processes: SummaryProcessSample[];
  exit: TraceExitEvent | null;
  pid: number | null;
  stderrTail: string[];
  frames: { in: number; out: number; truncated: number };
  /** `t` of the last event. */
  durationMs: number;
}

const STDERR_TAIL_CHARS = 64 * 1024;
/**
 * Metrics samples kept for the exports' charts: past this many, every k-th (and the last),
 * chosen from the index before anything is read. (At one sample a second, more than an hour
 * at full resolution.) A long trace's samples all held cost memory and time for no pixel.
 */
export const MAX_METRICS_SAMPLES = 4096;

/** Process samples kept for the exports (at two a second, more than half an hour in full). */
export const MAX_PROCESS_SAMPLES = 4096;

/**
 * Which lines to read: every line of other types; of metrics and process samples all up to
 * their cap, else every k-th and the last.
 */
function sampler(reader: TraceReader): (i: number) => boolean {
  const caps = { metrics: MAX_METRICS_SAMPLES, process: MAX_PROCESS_SAMPLES } as const;
  const count = { metrics: 0, process: 0 };
  for (let i = 0; i < reader.count; i++) {
    const type = reader.type(i);
    if (type === 'metrics' || type === 'process') count[type] += 1;
  }
  const stride = {
    metrics: Math.ceil(count.metrics / caps.metrics),
    process: Math.ceil(count.process / caps.process),
  };
  if (stride.metrics <= 1 && stride.process <= 1) return () => true;
  const last = { metrics: reader.lastIndexOf('metrics'), process: reader.lastIndexOf('process') };
  const seen = { metrics: 0, process: 0 };
  const keep = new Uint8Array(reader.count);
  for (let i = 0; i < reader.count; i++) {
    const type = reader.type(i);
    if (type !== 'metrics' && type !== 'process') keep[i] = 1;
    else if (seen[type]++ % stride[type] === 0 || i === last[type]) keep[i] = 1;
  }
  return (i) => keep[i] === 1;
}

/** A recorded sample without what the exports do not draw. */
function compactSample(e: TraceProcessEvent): SummaryProcessSample {
  return {
    t: e.snapshot.t,
    processes: e.snapshot.processes.map((p) => ({
      pid: p.pid,
      ppid: p.ppid,
      depth: p.depth,
      command: p.command,
      state: p.state,
      kind: p.activity.kind,
      label: describeActivity({ ...p.activity, forMs: null }, null),
      cpuPercent: p.cpuPercent,
      writeRate: p.writeRate,
    })),
  };
}

/** The last STDERR_TAIL_CHARS of stderr text, read backwards from the end of the trace. */
async function stderrTail(reader: TraceReader): Promise<string> {
  const parts: string[] = [];
  let chars = 0;
  for (let i = reader.count - 1; i >= 0 && chars < STDERR_TAIL_CHARS; i--) {
    if (reader.type(i) !== 'stderr' || reader.isTruncated(i)) continue;
    const e = await reader.read(i);
    if (e?.type !== 'stderr' || e.text === undefined) continue;
    parts.push(e.text);
    chars += e.text.length;
  }
  return parts.reverse().join('').slice(-STDERR_TAIL_CHARS);
}

/** Reads the trace's small events and returns its report and what exports draw. */
export async function summarizeTrace(reader: TraceReader): Promise<TraceSummary> {
  const requests = new Map<string, RequestRecord>();
  /** Each request as it first left `pending` (what a caller awaiting it saw). */
  const settled = new Map<string, RequestRecord>();
  const metrics: TraceMetricsEvent[] = [];
  const cancels: TraceCancelEvent[] = [];
  const findings: TraceFindingEvent[] = [];
  const processes: SummaryProcessSample[] = [];
  let lastProcess: TraceProcessEvent | null = null;
  let exit: TraceExitEvent | null = null;
  let end: TraceEndEvent | null = null;
  let pid: number | null = null;
  for await (const e of reader.events(
    ['state', 'metrics', 'request', 'cancel', 'finding', 'exit', 'end', 'process'],
    sampler(reader),
  )) {
    switch (e.type) {
      case 'state':
        if (e.pid !== null) pid = e.pid;
        break;
      case 'metrics':
        metrics.push(e);
        break;
      case 'request': {
        const key = idKey(e.record.id);
        requests.set(key, e.record);
        if (e.record.status !== 'pending' && !settled.has(key)) settled.set(key, e.record);
        break;
      }
      case 'cancel':
        cancels.push(e);
        break;
      case 'finding':
        findings.push(e);
        break;
      case 'exit':
        exit = e;
        break;
      case 'process':
        processes.push(compactSample(e));
        lastProcess = e;
        break;
      case 'end':
        end = e;
        break;
    }
  }
  const records = [...requests.values()];
  const process = processReportAt(
    traceProcessAvailability(reader.header, processes.length),
    lastProcess,
  );
  // A trace of an older build ended with a report that has no `process` yet.
  const report: ProbeReport = end
    ? { ...end.report, process: end.report.process ?? process }
    : rebuildReport(reader.header, {
        pid,
        exit,
        metrics: metrics.at(-1)?.metrics ?? null,
        requests: records,
        settled,
        findings,
        cancels,
        process,
      });
  const lines = (await stderrTail(reader)).split('\n');
  if (lines.at(-1) === '') lines.pop();
  const frames = { in: 0, out: 0, truncated: 0 };
  for (let i = 0; i < reader.count; i++) {
    if (reader.type(i) !== 'frame') continue;
    if (reader.frameDir(i) === 'out') frames.out += 1;
    else frames.in += 1;
    if (reader.isTruncated(i)) frames.truncated += 1;
  }
  return {
    header: reader.header,
    report,
    reconstructed: end === null,
    startError: end?.startError ?? null,
    end,
    requests: records,
    metrics,
    cancels,
    findings,
    processes,
    exit,
    pid,
    stderrTail: lines.slice(-8),
    frames,
    durationMs: reader.count ? reader.t(reader.count - 1) : 0,
  };
}

export interface RebuildInput {
  pid: number | null;
  exit: TraceExitEvent | null;
  metrics: LiveMetrics | null;
  requests: RequestRecord[];
  /** Each request as it first settled (key: idKey). */
  settled: Map<string, RequestRecord>;
  findings: TraceFindingEvent[];
  cancels: TraceCancelEvent[];
  process: ProbeReport['process'];
}

/** The report as `buildProbeReport` would have made it at the last recorded moment. */
export function rebuildReport(header: TraceHeader, s: RebuildInput): ProbeReport {
  return {
    server: {
      command: header.server.command,
      args: [...header.server.args],
      pid: s.pid,
      exit: s.exit ? { code: s.exit.code, signal: s.exit.signal } : null,
    },
    metrics: toReportMetrics(s.metrics ?? emptyLiveMetrics()),
    requests: s.requests.map((r) => ({
      id: r.id,
      method: r.method,
      status: r.status,
      latencyMs: r.latencyMs === null ? null : round1(r.latencyMs),
      responseBytes: r.responseBytes,
      ...(r.status === 'failed' && r.error ? { error: r.error } : {}),
      ...(r.hostReadMs !== undefined && { hostReadMs: r.hostReadMs }),
      ...(r.audit !== undefined && { audit: r.audit }),
    })),
    recovery: rebuildRecovery(header, s),
    findings: foldFindings(s.findings),
    process: s.process,
  };
}

/**
 * The recovery probe is the last request of the recovery method sent after a cancellation,
 * as it was when it settled (a late answer afterwards does not change the probe's verdict) —
 * unless it ended completed: timed out behind the host's queue, its answer had arrived in time
 * (RecoveryVerdict judges it so, live).
 */
function rebuildRecovery(header: TraceHeader, s: RebuildInput): ProbeReport['recovery'] {
  const method = header.config.recoveryMethod;
  const firstCancel = Math.min(
    ...s.cancels.map((c) => c.t),
    ...s.requests.filter((r) => r.cancelledAt !== null).map((r) => r.cancelledAt ?? Infinity),
  );
  if (method === null || !Number.isFinite(firstCancel)) return null;
  const probe = s.requests.filter((r) => r.method === method && r.sentAt >= firstCancel).at(-1);
  if (!probe) return null;
  const at = probe.status === 'completed' ? probe : (s.settled.get(idKey(probe.id)) ?? probe);
  return {
    method,
    ok: at.status === 'completed',
    latencyMs: at.latencyMs === null ? null : round1(at.latencyMs),
  };
}

/**
 * One finding per code, the first one's latest message, episodes summed: FindingsEngine's
 * fold (foldByCode), over the recorded finding events (the last event of each finding — code,
 * or code and request — holds its latest message and count).
 */
export function foldFindings(events: readonly TraceFindingEvent[]): Finding[] {
  const latest = new Map<string, TraceFindingEvent>();
  for (const e of events) {
    const key = e.requestId === undefined ? e.code : `${e.code}#${String(e.requestId)}`;
    // A count of 0 is a finding taken back (FindingsEngine.retract): gone, and one raised again
    // later comes after the others, as in the engine's own map.
    if (e.count === 0) latest.delete(key);
    else latest.set(key, e);
  }
  return foldByCode([...latest.values()].sort((a, b) => a.firstAt - b.firstAt));
}

function idKey(id: string | number): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** Up to `max` non-JSON lines seen on stdout (offset and preview), for the human report. */
export async function pollutionFromTrace(reader: TraceReader, max = 5): Promise<TracePollution[]> {
  const out: TracePollution[] = [];
  for (let i = 0; i < reader.count && out.length < max; i++) {
    if (reader.type(i) !== 'frame' || reader.frameDir(i) !== 'in') continue;
    const meta = await reader.frameMeta(i);
    if (!meta || (meta.kind !== 'parse-error' && meta.kind !== 'empty')) continue;
    let preview = '';
    if (!reader.isTruncated(i) && reader.lineBytes(i) <= 64 * 1024) {
      const e = await reader.read(i);
      if (e?.type === 'frame') preview = (e.text ?? '').slice(0, 120);
    }
    out.push({
      t: meta.t,
      offset: meta.offset ?? 0,
      bytes: meta.bytes,
      preview,
      problem: meta.problem ?? '',
    });
  }
  return out;
}
