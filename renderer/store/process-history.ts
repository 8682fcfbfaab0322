/**
 * The process part of a session's data, pure: the newest sample of the server's process tree
 * and, per pid, the sparkline points of its last PROCESS_HISTORY_SAMPLES samples. Live
 * snapshots carry a sample only when a new one arrived (each is the whole tree); a replace
 * snapshot (a trace at a moment, a new subscriber) carries the sample and the points before
 * it, which replace what was held. Pids gone from the tree are dropped, so the history stays
 * as small as the tree.
 */
import type { ProcessSnapshot } from '../../shared/process';
import {
  PROCESS_HISTORY_SAMPLES,
  type ProcessPoint,
  processPoints,
  type SessionSnapshot,
} from '../../shared/session-info';
import type { SessionData } from './types';

export type ProcessHistory = ReadonlyMap<number, readonly ProcessPoint[]>;
type ProcessPart = Pick<SessionData, 'process' | 'processHistory'>;

export const NO_PROCESS_HISTORY: ProcessHistory = new Map();

/** Adds one sample's points to the history: one point per pid in it, the rest forgotten. */
export function appendProcessHistory(
  history: ProcessHistory,
  sample: ProcessSnapshot,
  cap = PROCESS_HISTORY_SAMPLES,
): ProcessHistory {
  const next = new Map<number, readonly ProcessPoint[]>();
  for (const point of processPoints(sample)) {
    const prev = history.get(point.pid) ?? [];
    const last = prev.at(-1);
    // The same sample twice (a whole state, then a delta that still carried it): once.
    if (last && last.t >= point.t) next.set(point.pid, prev);
    else
      next.set(point.pid, prev.length >= cap ? [...prev.slice(1 - cap), point] : [...prev, point]);
  }
  return next;
}

/** A history from flat points (oldest first), keeping the pids of `sample` only. */
export function historyFromPoints(
  points: readonly ProcessPoint[],
  sample: ProcessSnapshot | null,
  cap = PROCESS_HISTORY_SAMPLES,
): ProcessHistory {
  if (!sample) return NO_PROCESS_HISTORY;
  const alive = new Set(sample.processes.map((p) => p.pid));
  const byPid = new Map<number, ProcessPoint[]>();
  for (const p of points) {
    if (!alive.has(p.pid)) continue;
    const list = byPid.get(p.pid) ?? [];
    list.push(p);
    byPid.set(p.pid, list);
  }
  const out = new Map<number, readonly ProcessPoint[]>();
  for (const [pid, list] of byPid) out.set(pid, list.slice(-cap));
  return out;
}

/** The process part after a delta snapshot: unchanged (same references) without a sample. */
export function nextProcessPart(base: ProcessPart, snap: SessionSnapshot): ProcessPart {
  if (!snap.process) return { process: base.process, processHistory: base.processHistory };
  return {
    process: snap.process,
    processHistory: appendProcessHistory(base.processHistory, snap.process),
  };
}

/** The process part of a replace snapshot: what it carries, nothing kept from before. */
export function replacedProcessPart(snap: SessionSnapshot): ProcessPart {
  const process = snap.process ?? null;
  const points = snap.processHistory ?? (process ? processPoints(process) : []);
  return { process, processHistory: historyFromPoints(points, process) };
}
