/**
 * What every case of the battery gets: the server to run, the budgets, and `open`, which starts
 * a session that the case's runner owns (stopped when the case ends, or at its deadline,
 * whatever the case itself did). Also the labelled sessions of the whole run, which the cases
 * judged across sessions (stdout-clean, buffered-output, processes left) read at the end.
 */
import type { CheckSession, CheckTarget } from './check-session.js';

export interface BatteryContext {
  target: CheckTarget;
  /** Budget of one call unless the tool says otherwise (ms). */
  callTimeoutMs: number;
  /** How long paused-host keeps the reader paused (ms). */
  pauseMs: number;
  /** Starts a session of the current case; throws the engine's SessionError if it cannot. */
  open(label: string): Promise<CheckSession>;
}

/** One session of the run, with the case that opened it. */
export interface LabelledSession {
  caseId: string;
  session: CheckSession;
}
