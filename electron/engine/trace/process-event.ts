/**
 * Process samples in a trace (DESIGN.md "Process evidence", "Trace files"): which of the
 * sampler's samples a recorder keeps, and the lines it writes for them, redacted like the
 * server's argv (a child's command line can carry the same token).
 *
 * ProcessSampleGate owns the last sample kept and when. Fed by: the recorder, with every
 * sample the session emits (2-10 a second). Listens: nobody; `offer` answers keep or not.
 * A sample is kept when it is the first, or at least PROCESS_MIN_GAP_MS after the last kept
 * one and something a reader of the trace cares about changed (the tree, a state, what a
 * process is doing, its stdio, writing or not, CPU by 10 points), or PROCESS_KEEPALIVE_MS
 * passed (so the "blocked for" and CPU figures stay current): at most two lines a second.
 */
import type {
  FindingEvidence,
  ProcessAvailability,
  ProcessSample,
  ProcessSnapshot,
} from '../../../shared/process.js';
import type { TraceProcessEvent } from '../../../shared/trace-format.js';
import type { Redactor } from './redact.js';

export const PROCESS_MIN_GAP_MS = 500;
export const PROCESS_KEEPALIVE_MS = 5000;
/** CPU % points a process must move by for the move to be worth a line. */
const CPU_STEP = 10;

/** The session's `evidence.info()` as SessionInfo and trace headers carry it. */
export function processAvailabilityOf(info: {
  available: boolean;
  reason?: string;
}): ProcessAvailability {
  return info.available
    ? { available: true }
    : { available: false, reason: info.reason ?? 'the process sampler gave no reason' };
}

function sameProcess(a: ProcessSample, b: ProcessSample): boolean {
  const x = a.activity;
  const y = b.activity;
  if (a.pid !== b.pid || a.state !== b.state || a.threadCount !== b.threadCount) return false;
  if (x.kind !== y.kind || x.fdTarget !== y.fdTarget || x.tid !== y.tid) return false;
  const sx = x.syscall;
  const sy = y.syscall;
  if ((sx === null) !== (sy === null)) return false;
  if (sx && sy && (sx.nr !== sy.nr || sx.fd !== sy.fd || sx.bytes !== sy.bytes)) return false;
  if ((a.writeRate ?? 0) > 0 !== (b.writeRate ?? 0) > 0) return false;
  if (Math.abs((a.cpuPercent ?? 0) - (b.cpuPercent ?? 0)) >= CPU_STEP) return false;
  if (a.stdio.length !== b.stdio.length) return false;
  return a.stdio.every((s, i) => {
    const o = b.stdio[i];
    return s.fd === o.fd && s.target === o.target && s.peer?.pid === o.peer?.pid;
  });
}

/** Whether `b` tells a reader something `a` did not (see the header). */
export function processChanged(a: ProcessSnapshot, b: ProcessSnapshot): boolean {
  if (a.rootPid !== b.rootPid || a.omitted !== b.omitted) return true;
  if (a.processes.length !== b.processes.length) return true;
  return a.processes.some((p, i) => !sameProcess(p, b.processes[i]));
}

export class ProcessSampleGate {
  private last: ProcessSnapshot | null = null;

  /** Whether to record `s`; a kept sample becomes the one the next are compared with. */
  offer(s: ProcessSnapshot): boolean {
    const last = this.last;
    const keep =
      last === null ||
      (s.t - last.t >= PROCESS_MIN_GAP_MS &&
        (s.t - last.t >= PROCESS_KEEPALIVE_MS || processChanged(last, s)));
    if (keep) this.last = s;
    return keep;
  }
}

/** The trace line of a sample: every command line (and a peer's) through `redactor`. */
export function processEvent(
  s: ProcessSnapshot,
  samples: number,
  redactor: Redactor,
): TraceProcessEvent {
  return {
    t: s.t,
    type: 'process',
    samples,
    snapshot: {
      ...s,
      processes: s.processes.map((p) => ({
        ...p,
        command: redactor.command(p.command),
        stdio: p.stdio.map((e) =>
          e.peer ? { ...e, peer: { ...e.peer, command: redactor.command(e.peer.command) } } : e,
        ),
      })),
    },
  };
}

/** A finding's evidence as recorded: its command line redacted, the rest as it was. */
export function redactEvidence(e: FindingEvidence, redactor: Redactor): FindingEvidence {
  return redactor.evidence(e);
}
