/**
 * Export to the Chrome trace-event format (JSON object form), which Perfetto and
 * chrome://tracing open: one track (tid) per request with a complete event (`X`) from send
 * to response, instant events (`i`) for cancellations, findings and the process exit, and
 * counters (`C`) for stdout bytes/s and dispatcher depth from the 1 Hz metrics samples, and a
 * track per process of the server's tree from the recorded process samples (activity as
 * slices, CPU % and bytes written/s as counters: perfetto-process.ts).
 * Every event carries name, ph, ts (µs), pid and tid. Pure over a TraceSummary.
 */
import type { JsonRpcId } from '../../../../shared/requests.js';
import { Redactor } from '../redact.js';
import type { TraceSummary } from '../summary.js';
import type { ChromeTrace, ChromeTraceEvent } from './chrome-trace.js';
import { processTrackEvents } from './perfetto-process.js';

export type { ChromeTrace, ChromeTraceEvent } from './chrome-trace.js';

const SESSION_TID = 0;

function us(ms: number): number {
  return Math.round(ms * 1000);
}

export function toChromeTrace(sum: TraceSummary): ChromeTrace {
  const redact = new Redactor({ enabled: true });
  const pid = sum.pid ?? 1;
  const end = Math.max(sum.durationMs, ...sum.requests.map((r) => r.sentAt));
  const events: ChromeTraceEvent[] = [];
  const meta = (tid: number, name: string, args: Record<string, unknown>): void => {
    events.push({ name, ph: 'M', ts: 0, pid, tid, args });
  };
  const command = [sum.header.server.command, ...sum.header.server.args].join(' ');
  meta(SESSION_TID, 'process_name', { name: `MCP server: ${redact.command(command)}` });
  meta(SESSION_TID, 'thread_name', { name: 'session' });

  const tids = new Map<string, number>();
  const tidOf = (id: JsonRpcId): number | undefined => tids.get(`${typeof id}:${String(id)}`);
  sum.requests.forEach((r, i) => {
    const tid = i + 1;
    tids.set(`${typeof r.id}:${String(r.id)}`, tid);
    meta(tid, 'thread_name', { name: `#${String(r.id)} ${r.method}` });
    meta(tid, 'thread_sort_index', { sort_index: tid });
    const durMs = r.latencyMs ?? Math.max(0, end - r.sentAt);
    events.push({
      name: r.method,
      cat: 'request',
      ph: 'X',
      ts: us(r.sentAt),
      dur: Math.max(1, us(durMs)),
      pid,
      tid,
      args: {
        id: r.id,
        status: r.status,
        requestBytes: r.requestBytes,
        responseBytes: r.responseBytes,
        latencyMs: r.latencyMs,
        progressCount: r.progressCount,
        ...(r.cancelReason ? { cancelReason: r.cancelReason } : {}),
        ...(r.latencyMs === null ? { note: 'no response before the end of the trace' } : {}),
      },
    });
  });

  for (const c of sum.cancels) {
    events.push({
      name: `cancel #${String(c.id)}`,
      cat: 'cancellation',
      ph: 'i',
      s: 't',
      ts: us(c.t),
      pid,
      tid: tidOf(c.id) ?? SESSION_TID,
      args: { id: c.id, reason: redact.text(c.reason) },
    });
  }
  for (const f of sum.findings) {
    events.push({
      name: f.code,
      cat: `finding,${f.level}`,
      ph: 'i',
      s: 'p',
      ts: us(f.t),
      pid,
      tid: f.requestId === undefined ? SESSION_TID : (tidOf(f.requestId) ?? SESSION_TID),
      args: { level: f.level, message: redact.text(f.message), count: f.count },
    });
  }
  for (const m of sum.metrics) {
    const ts = us(m.t);
    events.push({
      name: 'stdout bytes/s',
      ph: 'C',
      ts,
      pid,
      tid: SESSION_TID,
      args: { value: Math.round(m.metrics.stdoutRate) },
    });
    events.push({
      name: 'dispatcher depth',
      ph: 'C',
      ts,
      pid,
      tid: SESSION_TID,
      args: { value: m.metrics.dispatcherDepth },
    });
  }
  events.push(
    ...processTrackEvents(sum.processes, {
      sessionPid: pid,
      serverTid: sum.requests.length + 1,
      endMs: end,
      redact: (text) => redact.command(text),
    }),
  );
  if (sum.exit) {
    events.push({
      name: 'server exit',
      cat: 'process',
      ph: 'i',
      s: 'p',
      ts: us(sum.exit.t),
      pid,
      tid: SESSION_TID,
      args: { code: sum.exit.code, signal: sum.exit.signal },
    });
  }
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: {
      source: 'pipescope trace',
      startedAt: new Date(sum.header.startedAt).toISOString(),
      command: redact.command(command),
      redacted: sum.header.redacted,
      reportRebuilt: sum.reconstructed,
    },
  };
}
