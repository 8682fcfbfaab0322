/**
 * What a process is doing, from one sample of its threads: the most telling thread wins (a
 * write that does not finish says more than an idle event loop; a main thread waiting on
 * stdin says more than a helper thread parked on a futex). Pure.
 */
import type { Activity, ActivityKind, SyscallInfo } from '../../../shared/process.js';
import type { RawThread } from './source.js';
import { classOf } from './syscalls.js';

export interface TimedThread extends RawThread {
  /** ms in this same call across samples (0 when first seen in it); null when in none. */
  forMs: number | null;
}

function kindOf(t: TimedThread): ActivityKind {
  if (t.state === 'Z' || t.state === 'X') return 'zombie';
  if (t.state === 'T' || t.state === 't') return 'stopped';
  if (t.state === 'R' || t.syscall === 'running') return 'running';
  const call = t.syscall;
  if (call === null) return t.state === 'S' || t.state === 'D' ? 'sleeping' : 'unknown';
  switch (classOf(call.name)) {
    case 'write':
      return 'writing';
    case 'read':
      return 'reading';
    case 'wait-child':
      return 'waiting-child';
    case 'event-loop':
      return 'event-loop';
    default:
      return 'sleeping';
  }
}

/** Higher is more telling. Reading stdin on the main thread ranks above a busy helper thread
 *  only when the process is not on CPU as a whole (cpu decides 'running' below). */
const RANK: Record<ActivityKind, number> = {
  writing: 7,
  'waiting-child': 6,
  reading: 5,
  running: 4,
  'event-loop': 3,
  stopped: 8,
  zombie: 9,
  sleeping: 1,
  unknown: 0,
};

export function activityOf(
  pid: number,
  threads: readonly TimedThread[],
  state: string,
  cpuPercent: number | null,
): Activity {
  let best: { t: TimedThread; kind: ActivityKind; rank: number } | null = null;
  for (const t of threads) {
    const kind = kindOf(t);
    let rank = RANK[kind];
    if (t.tid === pid) rank += 0.5; // the main thread breaks ties
    if (!best || rank > best.rank) best = { t, kind, rank };
  }
  // A process burning most of a core is busy whatever one thread sat in when sampled.
  const busy = cpuPercent !== null && cpuPercent >= 50;
  if (!best || (busy && best.kind !== 'writing' && best.kind !== 'zombie')) {
    const main = threads.find((t) => t.tid === pid) ?? threads[0];
    if (busy || !best) {
      return {
        kind: busy ? 'running' : state === 'Z' ? 'zombie' : 'unknown',
        tid: main?.tid ?? pid,
        syscall: null,
        wchan: null,
        forMs: null,
        fdTarget: null,
      };
    }
  }
  const call = best.t.syscall;
  return {
    kind: best.kind,
    tid: best.t.tid,
    syscall: call === null || call === 'running' ? null : (call satisfies SyscallInfo),
    wchan: best.t.wchan,
    forMs: best.t.forMs,
    fdTarget: best.t.fdTarget,
  };
}
