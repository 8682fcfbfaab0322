/**
 * Trace files (DESIGN.md "Trace files"): the on-disk format other tools read. Pure types and
 * validation, no DOM, no Node: the recorder (main), the CLI and the renderer share them.
 *
 * A trace is JSON Lines, UTF-8, one object per `\n`-terminated line:
 *
 * - Line 1, the header: `{"format":"pipescope-trace","version":1,"startedAt":<epoch ms>,
 *   "server":{command,args,cwd,env},"config":{maxFrameBytes,onOversize,readerMode,…},
 *   "recordingBudgetBytes":<n>,"redacted":true,"redaction":{rules,final}}`. With redaction
 *   on (the default) every env value is `***` (names kept), secrets in args are `***`, and
 *   `redaction` says per rule what was replaced and why (REDACTION_RULES); ordinary payload
 *   text is kept. The line may end in spaces (room for the final counts).
 * - Then one event a line. Every event starts with `"t"` (ms since the session's start) and
 *   `"type"`, in that order, so a reader can index a huge file from each line's first bytes;
 *   a frame's or stderr chunk's `text` (or `base64`) is always the last key. Lines are in
 *   recording order; `t` is when the thing happened (a frame's arrival in the worker), so it
 *   may step back by a few ms across event types.
 *
 * Events: `state` (session state and pid), `frame` (both directions; exact text while the
 * recording budget lasts, then `truncated: true` with `sha256` of the frame's bytes — a
 * frame's text is written iff it fits what is left of the budget; client→server frames up to
 * 64 KiB always keep their text, so a trace stays replayable), `stderr` (chunks, same budget), `metrics` (LiveMetrics at 1 Hz and once at the end), `request` (the record on each
 * state change), `cancel` (a notifications/cancelled we sent), `finding` (new or recurring),
 * `oversize` (the framer hit maxFrameBytes), `mode` (reader mode or consumer delay changed),
 * `exit` (the server process), `process` (a sample of the server's process tree: the first,
 * then at most two a second and only when something a reader cares about changed, plus one
 * every 5 s, and the last one seen once more at the end if it was left out; DESIGN.md
 * "Process evidence"), and `end` (the final report) when the session
 * stopped cleanly. A finding's `evidence` (what it rests on) is recorded with it.
 * A trace without `end` (a crash, a kill) is still readable: the report is rebuilt from the
 * events. Readers must skip event types they do not know (more may be added in version 1).
 */
import type { FindingCode, FindingFigure, FindingLevel } from './findings.js';
import type { FrameDirection, FrameKind } from './frames.js';
import type { LiveMetrics } from './metrics.js';
import type { ProbeReport } from './probe-report.js';
import type { FindingEvidence, ProcessAvailability, ProcessSnapshot } from './process.js';
import type { TraceRedaction } from './redaction.js';
import type { JsonRpcId, RequestRecord } from './requests.js';
import type { SessionConfig } from './session-config.js';
import type { SessionState } from './session-info.js';

export {
  REDACTION_RULES,
  type RedactionCount,
  type RedactionRule,
  type TraceRedaction,
} from './redaction.js';

export const TRACE_FORMAT = 'pipescope-trace';
export const TRACE_VERSION = 1;
/** Frame and stderr text kept per trace before frames are cut to size + sha-256. */
export const DEFAULT_RECORDING_BUDGET_BYTES = 64 * 1024 * 1024;
/** What a redacted value is replaced with. */
export const REDACTED = '***';

/** The transport configuration of the recorded session (everything but what to spawn). */
/** The session's config as recorded (the result budget and host profile are absent in
 *  traces recorded before they existed). */
export type TraceConfig = Omit<
  SessionConfig,
  'command' | 'args' | 'cwd' | 'env' | 'resultBudgetBytes' | 'hostProfile'
> &
  Partial<Pick<SessionConfig, 'resultBudgetBytes' | 'hostProfile'>>;

export interface TraceHeader {
  format: typeof TRACE_FORMAT;
  version: typeof TRACE_VERSION;
  /** Epoch ms of the session's time origin (event `t` is relative to it). */
  startedAt: number;
  server: { command: string; args: string[]; cwd: string | null; env: Record<string, string> };
  config: TraceConfig;
  recordingBudgetBytes: number;
  /** Whether secrets were redacted (false only with `--no-redact`, or Record's option). */
  redacted: boolean;
  /** What redaction replaced and why, per rule (absent without redaction, and in traces
   *  recorded before it was counted). Rewritten in place when the recording finishes: the
   *  header line is padded with spaces for it. */
  redaction?: TraceRedaction;
  recorder: { name: string; version: string };
  /** Whether the process tree could be sampled when recording began (absent in older traces). */
  process?: ProcessAvailability;
}

interface Base {
  /** ms since the session's start. */
  t: number;
}

export interface TraceStateEvent extends Base {
  type: 'state';
  state: SessionState;
  pid: number | null;
}

export interface TraceFrameEvent extends Base {
  type: 'frame';
  dir: FrameDirection;
  /** The session's frame sequence number (both directions share it). */
  seq: number;
  /** Exact size of the frame in bytes, without its newline. */
  bytes: number;
  kind: FrameKind | 'oversize';
  /** Stream offset of an incoming frame. */
  offset: number | null;
  id?: JsonRpcId | null;
  method?: string;
  problem?: string;
  /** The text was changed by redaction (it is not the exact bytes any more). */
  redacted?: true;
  /** The frame was not valid UTF-8: `text` is a lossy decoding (invalid bytes → U+FFFD). */
  lossy?: true;
  /** The text is not in the trace (over the recording budget, or no longer held). */
  truncated?: true;
  /** sha-256 (hex) of the frame's exact bytes; with `truncated` (null if it was not held). */
  sha256?: string | null;
  /** Base64 of the exact bytes of a non-UTF-8 frame (only with redaction off). Last key. */
  base64?: string;
  /** The frame's exact text. Always the last key. */
  text?: string;
}

export interface TraceStderrEvent extends Base {
  type: 'stderr';
  bytes: number;
  truncated?: true;
  text?: string;
}

export interface TraceMetricsEvent extends Base {
  type: 'metrics';
  metrics: LiveMetrics;
}

export interface TraceRequestEvent extends Base {
  type: 'request';
  record: RequestRecord;
}

export interface TraceCancelEvent extends Base {
  type: 'cancel';
  id: JsonRpcId;
  reason: string;
}

export interface TraceFindingEvent extends Base {
  type: 'finding';
  code: FindingCode;
  level: FindingLevel;
  message: string;
  /** Episodes so far (the engine folds recurrences into one finding); 0: taken back (later
   *  evidence showed it wrong, e.g. a late answer that was flushed at exit). */
  count: number;
  firstAt: number;
  lastAt: number;
  requestId?: JsonRpcId;
  /** What the finding rests on (the process that is the evidence, its syscall, …). */
  evidence?: FindingEvidence;
  /** For a condition that holds over time: whether it still held at `t`. */
  active?: boolean;
  /** Its latest episode: when it began, when it ended and why (LiveFinding). */
  since?: number;
  resolvedAt?: number;
  resolvedBy?: 'condition' | 'session-end';
  /** The numbers behind the message, each with its moment (when raised, the peak). */
  figures?: FindingFigure[];
}

export interface TraceProcessEvent extends Base {
  type: 'process';
  /** Samples the engine had taken when the line was written (the report's `process.samples`):
   *  the trace keeps only some of them; the last line, written at the end, has the final count. */
  samples: number;
  /** Commands redacted like the server's argv. */
  snapshot: ProcessSnapshot;
}

export interface TraceOversizeEvent extends Base {
  type: 'oversize';
  phase: 'start' | 'end';
  offset: number;
  bytes: number;
  atEof: boolean;
}

export interface TraceModeEvent extends Base {
  type: 'mode';
  readerMode: SessionConfig['readerMode'];
  consumerDelayMs: number;
}

export interface TraceExitEvent extends Base {
  type: 'exit';
  code: number | null;
  signal: string | null;
}

export interface TraceEndEvent extends Base {
  type: 'end';
  /** Exactly what `probe --json` printed (redacted like the rest of the trace). */
  report: ProbeReport;
  recovery: ProbeReport['recovery'];
  /** Set when the server could not start (the probe exits 2). */
  startError: string | null;
  recording: {
    bytes: number;
    frames: number;
    framesWithText: number;
    truncatedFrames: number;
    /** Lines dropped because the disk fell more than 64 MiB behind (counted, never silent). */
    droppedEvents: number;
  };
}

export type TraceEvent =
  | TraceStateEvent
  | TraceFrameEvent
  | TraceStderrEvent
  | TraceMetricsEvent
  | TraceRequestEvent
  | TraceCancelEvent
  | TraceFindingEvent
  | TraceOversizeEvent
  | TraceModeEvent
  | TraceExitEvent
  | TraceEndEvent
  | TraceProcessEvent;

export type TraceEventType = TraceEvent['type'];

export const TRACE_EVENT_TYPES = [
  'state',
  'frame',
  'stderr',
  'metrics',
  'request',
  'cancel',
  'finding',
  'oversize',
  'mode',
  'exit',
  'end',
  'process',
] as const satisfies readonly TraceEventType[];

export function isTraceEventType(s: string): s is TraceEventType {
  return (TRACE_EVENT_TYPES as readonly string[]).includes(s);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isId = (v: unknown): boolean => isStr(v) || isNum(v) || v === null;
const isFigure = (v: unknown): boolean =>
  isObject(v) && isStr(v.label) && isNum(v.value) && isStr(v.unit) && isStr(v.at) && isNum(v.t);

/** A process sample the panel can draw: what describeProcess and the tree rely on. */
function usableProcess(p: unknown): boolean {
  return (
    isObject(p) &&
    isNum(p.pid) &&
    isNum(p.depth) &&
    isStr(p.command) &&
    isStr(p.state) &&
    isObject(p.activity) &&
    isStr(p.activity.kind) &&
    Array.isArray(p.stdio) &&
    p.stdio.every((x) => isObject(x) && isNum(x.fd)) &&
    Array.isArray(p.threads) &&
    p.threads.every((x) => isObject(x) && isNum(x.tid) && isStr(x.state))
  );
}

/** What each event type needs to be usable (what the readers of a trace rely on). */
const USABLE: Record<TraceEventType, (e: Record<string, unknown>) => boolean> = {
  state: (e) => isStr(e.state),
  frame: (e) =>
    (e.dir === 'in' || e.dir === 'out') && isNum(e.seq) && isNum(e.bytes) && isStr(e.kind),
  stderr: (e) => isNum(e.bytes),
  metrics: (e) => isObject(e.metrics),
  request: (e) => {
    const r = e.record;
    return isObject(r) && isId(r.id) && isStr(r.method) && isStr(r.status) && isNum(r.sentAt);
  },
  cancel: (e) => isId(e.id),
  finding: (e) =>
    isStr(e.code) &&
    isStr(e.level) &&
    isStr(e.message) &&
    (e.evidence === undefined || isObject(e.evidence)) &&
    (e.active === undefined || typeof e.active === 'boolean') &&
    (e.figures === undefined || (Array.isArray(e.figures) && e.figures.every(isFigure))),
  oversize: (e) => (e.phase === 'start' || e.phase === 'end') && isNum(e.offset),
  mode: (e) => isStr(e.readerMode),
  exit: () => true,
  process: (e) => {
    const s = e.snapshot;
    return (
      isNum(e.samples) &&
      isObject(s) &&
      isNum(s.t) &&
      isNum(s.rootPid) &&
      Array.isArray(s.processes) &&
      s.processes.every(usableProcess)
    );
  },
  end: (e) => {
    const r = e.report;
    return (
      isObject(r) &&
      isObject(r.server) &&
      isObject(r.metrics) &&
      Array.isArray(r.requests) &&
      Array.isArray(r.findings)
    );
  },
};

/**
 * A parsed line as an event, or null when it cannot be used: not an object, no finite `t`, a
 * type this build does not know, or a field its readers need missing or of the wrong type
 * (`{"t":4,"type":"request","record":null}`). Readers skip and count such lines.
 */
export function usableEvent(value: unknown): TraceEvent | null {
  if (!isObject(value) || !isNum(value.t) || !isStr(value.type)) return null;
  if (!isTraceEventType(value.type)) return null;
  return USABLE[value.type](value) ? (value as unknown as TraceEvent) : null;
}

/** Checks a parsed first line; returns the header or a one-line reason it is not one. */
export function parseTraceHeader(value: unknown): TraceHeader | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'the first line is not a JSON object';
  const h = value as Partial<TraceHeader>;
  if (h.format !== TRACE_FORMAT)
    return `not a pipescope trace (format ${JSON.stringify(h.format)})`;
  if (h.version !== TRACE_VERSION)
    return `unsupported trace version ${JSON.stringify(h.version)} (this build reads ${TRACE_VERSION})`;
  if (typeof h.startedAt !== 'number') return 'header has no startedAt';
  const s = h.server;
  if (!s || typeof s.command !== 'string' || !Array.isArray(s.args))
    return 'header has no server command';
  if (!h.config || typeof h.config !== 'object') return 'header has no config';
  return h as TraceHeader;
}
