/**
 * The process tracks of the Chrome trace-event export (perfetto.ts): for each process of the
 * server's tree one "activity" track whose slices (`X`) are the runs of one activity between
 * samples (writing stdout, idle in the event loop, on CPU, waiting for a child…), and counters
 * (`C`) for its CPU % and bytes written per second. The server itself is drawn in the session's
 * process (beside its requests); each other process is a Chrome process of its own, named by
 * pid and command. Pure over the summary's compact samples.
 */
import type { ChromeTraceEvent } from './chrome-trace.js';

/** What the tracks are drawn from (TraceSummary's `processes`). */
interface Sample {
  t: number;
  processes: {
    pid: number;
    depth: number;
    command: string;
    state: string;
    kind: string;
    label: string;
    cpuPercent: number | null;
    writeRate: number | null;
  }[];
}

interface Open {
  label: string;
  kind: string;
  state: string;
  from: number;
}

function us(ms: number): number {
  return Math.round(ms * 1000);
}

export interface ProcessTrackOptions {
  /** The Chrome pid the session's own tracks use (the server's pid, or 1). */
  sessionPid: number;
  /** A tid the session's process does not use yet, for the server's activity track. */
  serverTid: number;
  /** Where the last slices end (the trace's duration). */
  endMs: number;
  /** Command lines as the export may show them (redacted). */
  redact(text: string): string;
}

export function processTrackEvents(
  samples: readonly Sample[],
  o: ProcessTrackOptions,
): ChromeTraceEvent[] {
  const events: ChromeTraceEvent[] = [];
  const open = new Map<number, Open>();
  const named = new Set<number>();
  /** Chrome pid and tid of a process's activity track. */
  const where = (p: { pid: number; depth: number }): { pid: number; tid: number } =>
    p.depth === 0 ? { pid: o.sessionPid, tid: o.serverTid } : { pid: p.pid, tid: p.pid };

  const close = (key: number, at: number): void => {
    const s = open.get(key);
    if (!s) return;
    open.delete(key);
    const track = key === -1 ? { pid: o.sessionPid, tid: o.serverTid } : { pid: key, tid: key };
    events.push({
      name: s.label,
      cat: `process,${s.kind}`,
      ph: 'X',
      ts: us(s.from),
      dur: Math.max(1, us(at - s.from)),
      pid: track.pid,
      tid: track.tid,
      args: { kind: s.kind, state: s.state },
    });
  };

  for (const sample of samples) {
    const seen = new Set<number>();
    for (const p of sample.processes) {
      // The server keeps key -1 even if its pid differs from the session's (no state event).
      const key = p.depth === 0 ? -1 : p.pid;
      seen.add(key);
      const track = where(p);
      if (!named.has(key)) {
        named.add(key);
        if (key !== -1)
          events.push({
            name: 'process_name',
            ph: 'M',
            ts: 0,
            pid: track.pid,
            tid: track.tid,
            args: { name: `${p.pid} ${o.redact(p.command).slice(0, 120)}` },
          });
        events.push({
          name: 'thread_name',
          ph: 'M',
          ts: 0,
          pid: track.pid,
          tid: track.tid,
          args: { name: key === -1 ? `server ${p.pid} activity` : 'activity' },
        });
        events.push({
          name: 'thread_sort_index',
          ph: 'M',
          ts: 0,
          pid: track.pid,
          tid: track.tid,
          args: { sort_index: -1 },
        });
      }
      const cur = open.get(key);
      if (!cur || cur.label !== p.label || cur.state !== p.state) {
        close(key, sample.t);
        open.set(key, { label: p.label, kind: p.kind, state: p.state, from: sample.t });
      }
      const ts = us(sample.t);
      if (p.cpuPercent !== null)
        events.push({
          name: 'CPU %',
          ph: 'C',
          ts,
          pid: track.pid,
          tid: track.tid,
          args: { value: Math.round(p.cpuPercent * 10) / 10 },
        });
      if (p.writeRate !== null)
        events.push({
          name: 'bytes written/s',
          ph: 'C',
          ts,
          pid: track.pid,
          tid: track.tid,
          args: { value: Math.round(p.writeRate) },
        });
    }
    // A process gone from the tree (exited, or reaped): its last slice ends here.
    for (const key of [...open.keys()]) if (!seen.has(key)) close(key, sample.t);
  }
  const end = Math.max(o.endMs, samples.at(-1)?.t ?? 0);
  for (const key of [...open.keys()]) close(key, end);
  return events;
}
