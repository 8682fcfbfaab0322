/**
 * Pure reducers: HostEvent → next DataState. The store calls `reduceEvent` once per event and
 * commits the result with one `set`. Snapshots carry deltas (new frames, changed requests, new
 * stderr); each list is appended once per batch and capped with one slice at the end, and a
 * part that did not change keeps its old reference so narrow selectors skip the re-render.
 */
import type { LiveFinding } from '../../shared/findings';
import type { HostEvent } from '../../shared/host-api';
import type { JsonRpcId, RequestRecord } from '../../shared/requests';
import { isEnded, type SessionInfo, type SessionSnapshot } from '../../shared/session-info';
import { NO_PROCESS_HISTORY, nextProcessPart, replacedProcessPart } from './process-history';
import {
  type DataState,
  DEFAULT_LIMITS,
  type FrameSize,
  type SessionData,
  type StoreLimits,
} from './types';

const CLOSED_IDS_KEPT = 200;

export function emptySessionData(info: SessionInfo): SessionData {
  return {
    info,
    seq: 0,
    metrics: null,
    points: [],
    requests: new Map(),
    requestsDropped: 0,
    frames: [],
    framesSkipped: 0,
    frameSizes: [],
    stderr: '',
    stderrSkipped: 0,
    findings: [],
    process: null,
    processHistory: NO_PROCESS_HISTORY,
    recovery: null,
    frameRate: 0,
  };
}

export function emptyDataState(): DataState {
  return { sessions: [], bySession: {}, closedIds: [], activeId: null };
}

/** Appends a batch and keeps the last `cap` items: at most one copy per batch. */
export function appendCapped<T>(
  list: T[],
  delta: readonly T[],
  cap: number,
): { list: T[]; dropped: number } {
  if (delta.length === 0) return { list, dropped: 0 };
  const total = list.length + delta.length;
  if (total <= cap) return { list: list.concat(delta), dropped: 0 };
  const dropped = total - cap;
  if (dropped >= list.length) return { list: delta.slice(delta.length - cap), dropped };
  return { list: list.slice(dropped).concat(delta), dropped };
}

/** Appends text and keeps about the last `cap` characters, cut at a line start when possible. */
export function appendTextCapped(
  text: string,
  delta: string,
  cap: number,
): { text: string; dropped: number } {
  if (delta.length === 0) return { text, dropped: 0 };
  const joined = text + delta;
  if (joined.length <= cap) return { text: joined, dropped: 0 };
  let start = joined.length - cap;
  // Prefer to start at a line boundary (within 1 KiB) so the first line shown is whole.
  const newline = joined.indexOf('\n', start);
  if (newline !== -1 && newline - start < 1024) start = newline + 1;
  // Never split a surrogate pair.
  else if (isLowSurrogate(joined.charCodeAt(start))) start += 1;
  return { text: joined.slice(start), dropped: start };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Merges changed request records into the table. Over the cap, the oldest finished requests
 * go first; pending ones are kept unless nothing else is left to drop.
 */
export function mergeRequests(
  requests: ReadonlyMap<JsonRpcId, RequestRecord>,
  delta: readonly RequestRecord[],
  cap: number,
): { requests: ReadonlyMap<JsonRpcId, RequestRecord>; dropped: number } {
  if (delta.length === 0) return { requests, dropped: 0 };
  const next = new Map(requests);
  for (const r of delta) next.set(r.id, r);
  let excess = next.size - cap;
  if (excess <= 0) return { requests: next, dropped: 0 };
  const dropped = excess;
  // Map order is insertion order: oldest first.
  for (const [id, r] of next) {
    if (excess === 0) break;
    if (r.status !== 'pending') {
      next.delete(id);
      excess -= 1;
    }
  }
  for (const id of next.keys()) {
    if (excess === 0) break;
    next.delete(id);
    excess -= 1;
  }
  return { requests: next, dropped };
}

/** A finding's figures (peaks move while its condition holds). */
function sameFigures(a: LiveFinding['figures'], b: LiveFinding['figures']): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((x, i) => x.value === b[i].value && x.t === b[i].t && x.label === b[i].label);
}

/** Findings arrive in full every snapshot; keep the old array when nothing changed. */
export function sameFindings(a: readonly LiveFinding[], b: readonly LiveFinding[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i];
    const y = b[i];
    if (
      x.code !== y.code ||
      x.count !== y.count ||
      x.lastAt !== y.lastAt ||
      x.message !== y.message ||
      x.requestId !== y.requestId ||
      x.evidence?.pid !== y.evidence?.pid ||
      x.evidence?.ms !== y.evidence?.ms ||
      x.active !== y.active ||
      x.resolvedAt !== y.resolvedAt ||
      !sameFigures(x.figures, y.figures)
    ) {
      return false;
    }
  }
  return true;
}

const INFO_SCALARS = [
  'id',
  'title',
  'command',
  'cwd',
  'demoId',
  'pid',
  'state',
  'startError',
  'startErrorCode',
  'handshakeError',
  'readerMode',
  'consumerDelayMs',
  'overloadPolicy',
  'onOversize',
  'maxFrameBytes',
  'startedAt',
] as const satisfies readonly (keyof SessionInfo)[];

/** Info arrives in full every snapshot; equal content keeps the old object. */
export function sameInfo(a: SessionInfo, b: SessionInfo): boolean {
  for (const key of INFO_SCALARS) if (a[key] !== b[key]) return false;
  if (a.exit?.code !== b.exit?.code || a.exit?.signal !== b.exit?.signal) return false;
  if ((a.exit === null) !== (b.exit === null)) return false;
  if (a.end?.by !== b.end?.by || a.end?.at !== b.end?.at) return false;
  const sa = a.serverInfo;
  const sb = b.serverInfo;
  if ((sa === null) !== (sb === null)) return false;
  if (sa && sb && (sa.name !== sb.name || sa.version !== sb.version)) return false;
  if (sa && sb && sa.protocolVersion !== sb.protocolVersion) return false;
  if (!sameStrings(a.args, b.args) || !sameStrings(a.envNames, b.envNames)) return false;
  if (!sameRecording(a.recording, b.recording)) return false;
  if (a.trace?.t !== b.trace?.t || a.trace?.fileName !== b.trace?.fileName) return false;
  if (a.trace?.markers.length !== b.trace?.markers.length) return false;
  if (a.tools.length !== b.tools.length) return false;
  if (a.process?.available !== b.process?.available || a.process?.reason !== b.process?.reason)
    return false;
  return a.tools.every((t, i) => t.name === b.tools[i].name);
}

function sameRecording(a: SessionInfo['recording'], b: SessionInfo['recording']): boolean {
  if (a === null || b === null) return a === b;
  return a.path === b.path && a.bytes === b.bytes && a.active === b.active;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/**
 * The frame-size chart needs the big frames, not every frame: a snapshot's sizes (up to 500 in
 * a flood) shrink to the largest incoming and the largest outgoing one, so the capped list
 * covers the whole chart window at any rate.
 */
export function largestPerDirection(sizes: readonly FrameSize[]): FrameSize[] {
  if (sizes.length <= 1) return sizes as FrameSize[];
  let maxIn: FrameSize | null = null;
  let maxOut: FrameSize | null = null;
  for (const s of sizes) {
    if (s.dir === 'in') {
      if (!maxIn || s.bytes > maxIn.bytes) maxIn = s;
    } else if (!maxOut || s.bytes > maxOut.bytes) maxOut = s;
  }
  const out = [maxIn, maxOut].filter((s): s is FrameSize => s !== null);
  return out.sort((a, b) => a.t - b.t);
}

/** Weight of the newest snapshot in the smoothed frame rate (about the last second at 20 Hz). */
const RATE_SMOOTHING = 0.15;

/**
 * Frames per second from the cumulative frame counter of two consecutive snapshots, smoothed
 * (an exponential moving average), so one busy snapshot does not flip the dashboard's mode.
 */
export function nextFrameRate(prev: SessionData, snap: SessionSnapshot): number {
  const before = prev.metrics;
  if (!before) return prev.frameRate;
  const dt = snap.metrics.elapsedMs - before.elapsedMs;
  if (!(dt > 0)) return prev.frameRate;
  const rate = (Math.max(0, snap.metrics.frames - before.frames) * 1000) / dt;
  return prev.frameRate + (rate - prev.frameRate) * RATE_SMOOTHING;
}

/** Applies one snapshot to a session's data (creating it when the snapshot comes first). */
export function applySnapshot(
  prev: SessionData | undefined,
  snap: SessionSnapshot,
  limits: StoreLimits = DEFAULT_LIMITS,
): SessionData {
  if (prev && snap.seq <= prev.seq) return prev; // stale or duplicate
  if (snap.replace) return replaceWithSnapshot(prev, snap, limits);
  const base = prev ?? emptySessionData(snap.info);
  const frames = appendCapped(base.frames, snap.frames, limits.frames);
  const sizes = appendCapped(
    base.frameSizes,
    largestPerDirection(snap.frameSizes),
    limits.frameSizes,
  );
  // A point no newer than the last is not appended: an ended session repeats its last one.
  const last = base.points.at(-1);
  const fresh = last === undefined || snap.point.t > last.t ? [snap.point] : [];
  const points = appendCapped(base.points, fresh, limits.points);
  const requests = mergeRequests(base.requests, snap.requests, limits.requests);
  const stderr = appendTextCapped(base.stderr, snap.stderr, limits.stderrChars);
  return {
    info: sameInfo(base.info, snap.info) ? base.info : snap.info,
    seq: snap.seq,
    metrics: snap.metrics,
    points: points.list,
    requests: requests.requests,
    requestsDropped: base.requestsDropped + requests.dropped,
    frames: frames.list,
    framesSkipped: base.framesSkipped + snap.framesSkipped + frames.dropped,
    frameSizes: sizes.list,
    stderr: stderr.text,
    stderrSkipped: base.stderrSkipped + snap.stderrSkipped + stderr.dropped,
    findings: sameFindings(base.findings, snap.findings) ? base.findings : snap.findings,
    ...nextProcessPart(base, snap),
    recovery: base.recovery,
    // Nothing flows once the server is over (its elapsed time stands still too).
    frameRate: isEnded(snap.info.state) ? 0 : nextFrameRate(base, snap),
  };
}

/**
 * A trace session's state at a moment: the snapshot's lists are the whole state (not deltas),
 * so they replace what was held, capped like live data; the selection and recovery stay.
 */
export function replaceWithSnapshot(
  prev: SessionData | undefined,
  snap: SessionSnapshot,
  limits: StoreLimits = DEFAULT_LIMITS,
): SessionData {
  const base = prev ?? emptySessionData(snap.info);
  const frames = appendCapped([], snap.frames, limits.frames);
  const sizes = appendCapped([], snap.frameSizes, limits.frameSizes);
  const points = appendCapped([], snap.series ?? [snap.point], limits.points);
  const requests = mergeRequests(new Map(), snap.requests, limits.requests);
  const stderr = appendTextCapped('', snap.stderr, limits.stderrChars);
  return {
    info: sameInfo(base.info, snap.info) ? base.info : snap.info,
    seq: snap.seq,
    metrics: snap.metrics,
    points: points.list,
    requests: requests.requests,
    requestsDropped: requests.dropped,
    frames: frames.list,
    framesSkipped: snap.framesSkipped + frames.dropped,
    frameSizes: sizes.list,
    stderr: stderr.text,
    stderrSkipped: snap.stderrSkipped + stderr.dropped,
    findings: sameFindings(base.findings, snap.findings) ? base.findings : snap.findings,
    ...replacedProcessPart(snap),
    recovery: base.recovery,
    frameRate: 0,
  };
}

/** The host's session list is authoritative: sessions missing from it were closed. */
export function applySessions(state: DataState, sessions: SessionInfo[]): DataState {
  const bySession: Record<string, SessionData> = {};
  const listed = new Set<string>();
  for (const info of sessions) {
    listed.add(info.id);
    const prev = state.bySession[info.id];
    if (!prev) bySession[info.id] = emptySessionData(info);
    else bySession[info.id] = sameInfo(prev.info, info) ? prev : { ...prev, info };
  }
  const closed = Object.keys(state.bySession).filter((id) => !listed.has(id));
  const closedIds =
    closed.length === 0 ? state.closedIds : [...state.closedIds, ...closed].slice(-CLOSED_IDS_KEPT);
  let activeId = state.activeId;
  if (activeId !== null && !listed.has(activeId)) {
    // The active tab went away: show the session that took its place (a restart), else its
    // neighbour, or the start screen.
    const order = state.sessions.map((s) => s.id);
    const at = order.indexOf(activeId);
    const successor = at >= 0 ? sessions[at]?.id : undefined;
    const replaced = successor !== undefined && !state.bySession[successor] ? successor : undefined;
    const neighbour =
      replaced ??
      order.slice(at + 1).find((id) => listed.has(id)) ??
      order
        .slice(0, Math.max(at, 0))
        .reverse()
        .find((id) => listed.has(id));
    activeId = neighbour ?? null;
  }
  return { sessions, bySession, closedIds, activeId };
}

/** One HostEvent → the next data state. Unknown-but-closed sessions stay closed. */
export function reduceEvent(
  state: DataState,
  event: HostEvent,
  limits: StoreLimits = DEFAULT_LIMITS,
): DataState {
  if (event.type !== 'sessions' && event.type !== 'snapshot') return state;
  if (event.type === 'sessions') return applySessions(state, event.sessions);
  const snap = event.snapshot;
  if (state.closedIds.includes(snap.sessionId)) return state;
  const prev = state.bySession[snap.sessionId];
  const next = applySnapshot(prev, snap, limits);
  if (next === prev) return state;
  const known = state.sessions.some((s) => s.id === snap.sessionId);
  const sessions = known
    ? state.sessions.map((s) =>
        s.id === snap.sessionId &&
        (s.state !== next.info.state || s.trace?.t !== next.info.trace?.t)
          ? next.info
          : s,
      )
    : [...state.sessions, next.info];
  return {
    ...state,
    sessions:
      sessions.every((s, i) => s === state.sessions[i]) && sessions.length === state.sessions.length
        ? state.sessions
        : sessions,
    bySession: { ...state.bySession, [snap.sessionId]: next },
  };
}

/** A session the user just started: make sure it exists and show it. */
export function openSession(state: DataState, info: SessionInfo): DataState {
  const bySession = state.bySession[info.id]
    ? state.bySession
    : { ...state.bySession, [info.id]: emptySessionData(info) };
  const sessions = state.sessions.some((s) => s.id === info.id)
    ? state.sessions
    : [...state.sessions, info];
  return { ...state, sessions, bySession, activeId: info.id };
}
