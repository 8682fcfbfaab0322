/**
 * Coalescing of session snapshots for a slow WebSocket client.
 *
 * A snapshot carries deltas (changed requests, new frames, new stderr) next to whole values
 * (info, metrics, findings). Dropping one would lose a request's final status for good, so a
 * socket that is backed up merges the snapshots it cannot send yet into one per session: whole
 * values from the newer, deltas combined under the same caps the SessionManager uses, and what
 * the caps cut is counted in `framesSkipped` / `stderrSkipped` (HARDENING.md 32: nothing lost
 * silently). Pure; used by socket-bridge.ts.
 */
import type { SessionSnapshot } from '../../shared/session-info.js';

const FRAMES_CAP = 200;
const SIZES_CAP = 500;
const STDERR_CAP = 64 * 1024;

export function mergeSnapshots(older: SessionSnapshot, newer: SessionSnapshot): SessionSnapshot {
  const requests = new Map(older.requests.map((r) => [r.id, r]));
  for (const r of newer.requests) requests.set(r.id, r);

  const frames = [...older.frames, ...newer.frames];
  const framesCut = Math.max(0, frames.length - FRAMES_CAP);

  const stderrAll = older.stderr + newer.stderr;
  const stderrCut = Math.max(0, stderrAll.length - STDERR_CAP);

  return {
    ...newer,
    requests: [...requests.values()],
    // Like the host's own snapshots: the newest frames and stderr stay, what was cut is counted.
    frames: framesCut > 0 ? frames.slice(framesCut) : frames,
    framesSkipped: older.framesSkipped + newer.framesSkipped + framesCut,
    frameSizes: [...older.frameSizes, ...newer.frameSizes].slice(-SIZES_CAP),
    stderr: stderrCut > 0 ? stderrAll.slice(stderrCut) : stderrAll,
    stderrSkipped: older.stderrSkipped + newer.stderrSkipped + stderrCut,
    // The newest process sample, wherever it came: a delta without one keeps the older's (a
    // whole-state snapshot's absence means there is none, so it stays absent).
    ...processOf(older, newer),
  };
}

function processOf(
  older: SessionSnapshot,
  newer: SessionSnapshot,
): Pick<SessionSnapshot, 'process' | 'processHistory'> {
  if (newer.replace) return {};
  const process = newer.process ?? older.process;
  const processHistory = newer.processHistory ?? older.processHistory;
  return {
    ...(process === undefined ? {} : { process }),
    ...(processHistory === undefined ? {} : { processHistory }),
  };
}
