/**
 * What a host says about a session: its info (SessionInfo: what runs, its state, its recording
 * or the trace behind it) and the snapshots pushed to the renderer. The HostApi (host-api.ts)
 * and its trace part (trace-api.ts) both answer with these, so they are declared here, once,
 * below both. Pure types: no zod, no DOM, no Node.
 */
import type { FindingLevel, LiveFinding } from './findings.js';
import type { FrameSummary } from './frames.js';
import type { HostProfileId } from './host-profiles.js';
import type { LiveMetrics } from './metrics.js';
import type { ProcessAvailability, ProcessSnapshot } from './process.js';
import type { RedactionCount } from './redaction.js';
import type { RequestRecord } from './requests.js';
import type { Budgets, OverloadPolicy, OversizePolicy, ReaderMode } from './session-options.js';

export type SessionState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

/**
 * How a live session ended, once it has: who ended it and when (epoch ms). `server`: the
 * server exited on its own (or never started); `user`: a person pressed Stop or Close;
 * `pipescope`: the host ended it (a terminate policy, the worker failing). The exit itself
 * (code or signal) is SessionInfo.exit.
 */
export interface SessionEnd {
  by: 'server' | 'user' | 'pipescope';
  at: number;
}

/** Whether a session's server is over (stopped, or never started). */
export function isEnded(state: SessionState): boolean {
  return state === 'stopped' || state === 'failed';
}

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface SessionInfo {
  id: string;
  title: string;
  command: string;
  args: string[];
  cwd: string | null;
  /** Names of the configured environment variables; values never leave the host. */
  envNames: string[];
  demoId: string | null;
  pid: number | null;
  state: SessionState;
  exit: { code: number | null; signal: string | null } | null;
  startError: string | null;
  /** The code behind startError: ENOENT, EACCES, ENOCWD (the working folder is missing), … */
  startErrorCode?: string | null;
  /** Set once a live session ended (null or absent while it runs, and for traces and taps). */
  end?: SessionEnd | null;
  /** What the handshake learned (null until initialize completed). */
  serverInfo: { name: string; version: string; protocolVersion: string } | null;
  handshakeError: string | null;
  tools: ToolInfo[];
  readerMode: ReaderMode;
  consumerDelayMs: number;
  overloadPolicy: OverloadPolicy;
  onOversize: OversizePolicy;
  maxFrameBytes: number;
  /** The result budget (bytes) and the host profile applied (`--host`, the start form's picker). */
  resultBudgetBytes: number;
  hostProfile: HostProfileId | null;
  /** The budgets behind this session's findings (its config's): what the counters measure against. */
  budgets: Budgets;
  /** Epoch ms. */
  startedAt: number;
  /** The trace this live session is being (or was) recorded to; null when not recording. */
  recording: RecordingInfo | null;
  /** Set for a read-only session opened from a trace file (no process behind it). */
  trace: TraceInfo | null;
  /** Set for a session a `pipescope tap` publishes: a host's server, seen through the tap
   *  (read-only for the host's traffic). */
  tap?: TapInfo | null;
  /** Whether the server's process tree can be sampled here (DESIGN.md "Process evidence"),
   *  and the reason when not; for a trace, whether it recorded process samples. */
  process: ProcessAvailability;
}

/** A tapped session's origin: which host runs the server, through which tap. */
export interface TapInfo {
  /** The server's name in the host's config (or its command's). */
  name: string;
  host: {
    /** "Claude Desktop", "Cursor", … (from `tap install`), else null. */
    label: string | null;
    pid: number;
    /** The host process's command line (its parent's, seen from the tap), when readable. */
    command: string | null;
  };
  tapPid: number;
  server: { command: string; args: string[]; cwd: string };
  /** Which relay moves the bytes: `native` (Linux, splice: the host reads at pipe speed) or
   *  `node` (the JavaScript relay, with why the native one is not used). */
  relay?: { kind: 'native' | 'node'; reason: string | null };
  /** Set on a session the tap started to replay one of the host's requests: a fresh server
   *  of its own whose traffic is Pipescope's (its calls all pass), not the host's. */
  replay?: boolean;
}

/** One point of the live charts (the renderer keeps a fixed window of them). */
export interface SeriesPoint {
  t: number;
  stdoutRate: number;
  stderrRate: number;
  dispatcherDepth: number;
  dispatcherWaitMs: number;
  largestFrameBytes: number;
}

/** A chart point at `t` with nothing flowing and nothing queued. */
export function quietPoint(t: number): SeriesPoint {
  return {
    t,
    stdoutRate: 0,
    stderrRate: 0,
    dispatcherDepth: 0,
    dispatcherWaitMs: 0,
    largestFrameBytes: 0,
  };
}

/** One process at one sample: what the process panel's sparklines draw. */
export interface ProcessPoint {
  t: number;
  pid: number;
  cpuPercent: number | null;
  writeRate: number | null;
}

/** Samples a process sparkline spans (30 s at the sampler's 2 Hz). */
export const PROCESS_HISTORY_SAMPLES = 60;

/** The sparkline points of one sample of the tree, one per process. */
export function processPoints(s: ProcessSnapshot): ProcessPoint[] {
  return s.processes.map((p) => ({
    t: s.t,
    pid: p.pid,
    cpuPercent: p.cpuPercent,
    writeRate: p.writeRate,
  }));
}

/** A session's state as pushed to the renderer, at most 20 times a second. */
export interface SessionSnapshot {
  sessionId: string;
  seq: number;
  info: SessionInfo;
  metrics: LiveMetrics;
  point: SeriesPoint;
  /** Requests that changed since the previous snapshot. */
  requests: RequestRecord[];
  /** Frame summaries new since the previous snapshot (capped; the rest counted). */
  frames: FrameSummary[];
  framesSkipped: number;
  /** Sizes of frames new since the previous snapshot (for the frame-size chart), capped. */
  frameSizes: { t: number; bytes: number; dir: 'in' | 'out' }[];
  /** stderr text new since the previous snapshot (capped; the rest counted). */
  stderr: string;
  stderrSkipped: number;
  /** All findings so far (few: one per code or per code and request). */
  findings: LiveFinding[];
  /**
   * The newest sample of the server's process tree, when one arrived since the previous
   * snapshot (only the latest: the sampler runs at 2-10 Hz). With `replace`: the sample at
   * that moment, and its absence means there is none (not sampled, or before the first).
   */
  process?: ProcessSnapshot;
  /** With `replace`: the sparkline points before `process` (the last PROCESS_HISTORY_SAMPLES
   *  samples, oldest first), which replace the renderer's. */
  processHistory?: ProcessPoint[];
  /**
   * A trace session's state at a moment (`trace:seek`): the lists are the whole state, not
   * deltas, and replace what the renderer holds; `series` replaces the chart points.
   */
  replace?: true;
  series?: SeriesPoint[];
}

/** A live session's trace recording (SessionInfo.recording). */
export interface RecordingInfo {
  path: string;
  /** Bytes written so far (or in all, once finished). */
  bytes: number;
  /** False once the recorder finished the file (the session stopped or recording was toggled off). */
  active: boolean;
  /** False when recorded without redaction (secrets stay in the file); absent: redacted. */
  redacted?: boolean;
}

/** A point of interest on the scrubber. */
export interface TraceMarker {
  t: number;
  kind: 'finding' | 'cancel';
  label: string;
  level: FindingLevel | null;
}

/** What makes a session a read-only trace session (SessionInfo.trace). */
export interface TraceInfo {
  path: string;
  fileName: string;
  fileBytes: number;
  /** Epoch ms of the recorded session's start. */
  recordedAt: number;
  durationMs: number;
  /** The moment the dashboard shows (ms since the recorded session's start). */
  t: number;
  /** The trace had no `end` record (the report is rebuilt from its events). */
  reconstructed: boolean;
  /** Lines that could not be used (a cut or damaged trace): skipped, and counted here. */
  skippedLines: number;
  markers: TraceMarker[];
  markersSkipped: number;
  /** What redaction replaced, per rule (absent in traces recorded before it was counted);
   *  `redacted` false: recorded without redaction (secrets are in the file). */
  redaction?: { redacted: boolean; rules: RedactionCount[]; final: boolean };
}
