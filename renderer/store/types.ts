/**
 * Shapes of the renderer's state: what the store keeps per session (built from snapshots) and
 * the caps that keep every list bounded whatever the server does (STYLE.md "The hot path").
 */
import type { DemoScenario } from '../../shared/demo-catalog';
import type { LiveFinding } from '../../shared/findings';
import type { FrameSummary } from '../../shared/frames';
import type { ImportResult, RecoveryInfo } from '../../shared/host-api';
import type { LiveMetrics } from '../../shared/metrics';
import type { ProcessSnapshot } from '../../shared/process';
import type { JsonRpcId, RequestRecord } from '../../shared/requests';
import type { ProcessPoint, SeriesPoint, SessionInfo } from '../../shared/session-info';

export interface StoreLimits {
  /** Chart points kept (a fixed window: ~30 s at 20 Hz). */
  points: number;
  /** Request records kept; the oldest finished ones are dropped first. */
  requests: number;
  /** Frame summaries kept for the frames log. */
  frames: number;
  /** Frame sizes kept for the frame-size chart (the largest per direction and snapshot). */
  frameSizes: number;
  /** stderr characters kept (the tail). */
  stderrChars: number;
}

export const DEFAULT_LIMITS: StoreLimits = {
  points: 600,
  requests: 2000,
  frames: 5000,
  frameSizes: 2000,
  stderrChars: 256 * 1024,
};

export interface FrameSize {
  t: number;
  bytes: number;
  dir: 'in' | 'out';
}

/** Everything the dashboard shows of one session. Arrays are replaced, never mutated. */
export interface SessionData {
  info: SessionInfo;
  /** seq of the last snapshot applied (0 before the first). */
  seq: number;
  metrics: LiveMetrics | null;
  points: SeriesPoint[];
  requests: ReadonlyMap<JsonRpcId, RequestRecord>;
  /** Request records the cap dropped. */
  requestsDropped: number;
  frames: FrameSummary[];
  /** Frame summaries never shown: skipped by the host or dropped by the renderer's cap. */
  framesSkipped: number;
  frameSizes: FrameSize[];
  stderr: string;
  /** stderr characters never shown (skipped by the host or trimmed from the head here). */
  stderrSkipped: number;
  findings: LiveFinding[];
  /** The newest sample of the server's process tree (null: none yet, or none at all). */
  process: ProcessSnapshot | null;
  /** Sparkline points per pid of the tree: its last PROCESS_HISTORY_SAMPLES samples. */
  processHistory: ReadonlyMap<number, readonly ProcessPoint[]>;
  recovery: RecoveryInfo | null;
  /** Frames per second, smoothed over the last snapshots (0 for a trace at a moment). */
  frameRate: number;
}

/** UI selections per session (kept apart from the data so snapshots never reset them). */
export interface SessionSelection {
  requestId: JsonRpcId | null;
  frameSeq: number | null;
}

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'failed';

/** The data part of the store: what `reduceEvent` and friends transform. */
export interface DataState {
  sessions: SessionInfo[];
  bySession: Readonly<Record<string, SessionData>>;
  /** Ids of sessions that were closed: late snapshots for them are ignored. */
  closedIds: readonly string[];
  activeId: string | null;
}

/** A short message for the user (a failed host call, a refused action). */
export interface Notice {
  id: number;
  level: 'info' | 'error';
  text: string;
}

export interface AppState extends DataState {
  connection: ConnectionState;
  connectionError: string | null;
  hostKind: 'electron' | 'browser' | null;
  catalog: DemoScenario[] | null;
  catalogError: string | null;
  selection: Readonly<Record<string, SessionSelection>>;
  notices: Notice[];
  /** The last imported config (the start screen's list; File → Import Config… lands here). */
  imported: { fileName: string; result: ImportResult } | null;
  /** Tapped sessions whose tab was closed here: the host still runs them, so the host keeps
   *  listing them; the store leaves them out until the page reloads. */
  hiddenIds: readonly string[];
}
