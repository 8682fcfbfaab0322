/**
 * Host traffic: in a tapped session (`pipescope tap`), the requests are the host's. Each line the
 * host wrote to the server's stdin comes here (framed by the tap): a request is entered in the
 * request table as the host sent it (its id, its method, its progress token; no timeout of ours:
 * the host keeps its own), a `notifications/cancelled` marks the host's request cancelled, and
 * every line is kept in the frame store as an outgoing frame. The tap also says how long the host
 * took to read each large answer (`hostRead`), which goes on the request it answered.
 *
 * Owns: a small, bounded map of large incoming frames by offset, and the answers that came
 * before their request (EarlyAnswers). Fed by: the tap's observer.
 * Listens: the session, through the request table's and the frame store's own hooks.
 */
import type { FrameKind, FrameSummary } from '../../../shared/frames.js';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import type { FrameStore } from './frame-store.js';
import type { Outgoing } from './outgoing.js';
import { type RequestTable, requestKey } from './request-table.js';

/** Incoming frames at least this large are matched to the host's reading of them. */
export const HOST_READ_MIN_BYTES = 64 * 1024;
const LARGE_FRAMES_KEPT = 256;
/** Host requests the table keeps waiting for an answer, at most. */
const MAX_PENDING = 1000;
/** How long an answer whose request is not known yet waits for the host's line, and how many
 *  wait at once (past either it is what it then is: a response to an unknown id). */
const EARLY_ANSWER_MS = 2000;
const EARLY_ANSWERS_KEPT = 256;

/**
 * Answers that came before their request. In a tapped session the two directions reach the
 * session by different threads: the server's output is framed by the transport worker, the
 * host's lines come through the observer thread. On a busy machine an answer can arrive first
 * (the relay read it a moment after the request, and it overtook it): it waits here until the
 * host's line is entered (`release`), or EARLY_ANSWER_MS.
 * Owns: the held answers and their timers (`dispose` lets each go as it is).
 */
export class EarlyAnswers {
  private readonly held = new Map<string, { run: () => void; timer: NodeJS.Timeout }>();

  /** `route` once the request with `id` is known (or the wait is over). */
  hold(id: JsonRpcId, route: () => void): void {
    const key = requestKey(id);
    if (this.held.has(key) || this.held.size >= EARLY_ANSWERS_KEPT) {
      route(); // a second answer to the same id, or too many waiting: as it is, at once
      return;
    }
    const timer = setTimeout(() => {
      this.held.delete(key);
      route();
    }, EARLY_ANSWER_MS);
    timer.unref?.();
    this.held.set(key, { run: route, timer });
  }

  /** The host's request `id` was entered: its answer, if one waits, now. */
  release(id: JsonRpcId): void {
    const key = requestKey(id);
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    clearTimeout(h.timer);
    h.run();
  }

  get size(): number {
    return this.held.size;
  }

  dispose(): void {
    const all = [...this.held.values()];
    this.held.clear();
    for (const h of all) {
      clearTimeout(h.timer);
      h.run();
    }
  }
}

/** Where the session hears of a frame kept and of a request changed outside the table's own
 *  hooks (its host read time). */
export interface HostTrafficEvents {
  emit(event: 'frame', summary: FrameSummary): boolean;
  emit(event: 'request', record: RequestRecord): boolean;
}

interface Parsed {
  kind: FrameKind;
  id?: JsonRpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  problem?: string;
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** What one of the host's lines is (it is small, and parsed whole: the host wrote it). */
export function parseHostLine(body: Buffer): Parsed {
  if (body.length === 0) return { kind: 'empty' };
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch (e) {
    return { kind: 'parse-error', problem: (e as Error).message };
  }
  if (Array.isArray(v)) return { kind: 'batch' };
  if (typeof v !== 'object' || v === null) return { kind: 'invalid', problem: 'not an object' };
  const m = v as { id?: unknown; method?: unknown; params?: unknown };
  const params =
    typeof m.params === 'object' && m.params !== null && !Array.isArray(m.params)
      ? (m.params as Record<string, unknown>)
      : undefined;
  const id = isId(m.id) ? m.id : m.id === null ? null : undefined;
  if (typeof m.method === 'string') {
    return id === undefined || id === null
      ? { kind: 'notification', method: m.method, params }
      : { kind: 'request', id, method: m.method, params };
  }
  if (id !== undefined) return { kind: 'response', id };
  return { kind: 'invalid', problem: 'neither a request, a notification nor a response' };
}

/** The map, its oldest entry dropped when it is full. */
function bounded<V>(m: Map<number, V>): Map<number, V> {
  if (m.size >= LARGE_FRAMES_KEPT) {
    const oldest = m.keys().next().value;
    if (oldest !== undefined) m.delete(oldest);
  }
  return m;
}

export class HostTraffic {
  /** Lines the host wrote, and how many were requests / cancellations. */
  lines = 0;
  requestCount = 0;
  cancellations = 0;
  oversizeLines = 0;
  /** Host requests let go unanswered (over MAX_PENDING). */
  abandoned = 0;
  /** Large incoming frames by stream offset, to put the host's read time on their request. */
  private readonly large = new Map<number, JsonRpcId>();
  /** Read times the tap reported before the frame itself was routed here (threads race). */
  private readonly early = new Map<number, number>();
  /** Answers routed before the host's line that asked for them. */
  readonly earlyAnswers = new EarlyAnswers();

  constructor(
    private readonly frames: FrameStore,
    private readonly requests: RequestTable,
    private readonly out: Outgoing,
    private readonly events: HostTrafficEvents,
  ) {}

  /** One line the host wrote to the server's stdin (without its newline), read at `t`. */
  line(body: Buffer, t: number): void {
    this.lines += 1;
    const p = parseHostLine(body);
    const summary = this.frames.add(
      { dir: 'out', t, offset: null, kind: p.kind, id: p.id, method: p.method, problem: p.problem },
      Buffer.from(body),
    );
    this.events.emit('frame', summary);
    if (p.kind === 'request' && p.id !== undefined && p.id !== null && p.method) {
      this.requestCount += 1;
      const token = p.params?._meta as { progressToken?: unknown } | undefined;
      const progressToken = isId(token?.progressToken) ? token.progressToken : null;
      // A host that reuses an id still pending: the table keeps the newer (its answer is next).
      void this.requests.add(p.id, p.method, p.params, {
        t,
        requestBytes: body.length,
        progressToken,
        requestSeq: summary.seq,
      });
      this.earlyAnswers.release(p.id);
      this.boundPending();
    } else if (p.kind === 'notification' && p.method === 'notifications/cancelled') {
      const target = p.params?.requestId;
      if (!isId(target)) return;
      this.cancellations += 1;
      const reason = typeof p.params?.reason === 'string' ? p.params.reason : 'no reason given';
      this.requests.markCancelled(target, t, `host: ${reason}`);
      this.out.countCancellation(target);
    }
  }

  /** No timeout of ours ends a host's request: past MAX_PENDING unanswered (answers the tap
   *  never saw, a host that gave up), the oldest are let go, failed and counted. */
  private boundPending(): void {
    if (this.requests.pendingCount <= MAX_PENDING) return;
    const pending = this.requests.inFlight();
    for (const r of pending.slice(0, Math.max(0, pending.length - MAX_PENDING))) {
      this.requests.fail(r.id, { code: -32000, message: 'no answer seen by the tap' });
      this.abandoned += 1;
    }
  }

  /** A line of the host's too long to keep (or cut by a gap in the tap's copies). */
  oversize(bytes: number, t: number): void {
    this.lines += 1;
    this.oversizeLines += 1;
    const problem = `${bytes} bytes of the host's not kept (over the tap's line bound)`;
    const summary = this.frames.add(
      { dir: 'out', t, offset: null, kind: 'oversize', problem },
      Buffer.alloc(0),
    );
    this.events.emit('frame', summary);
  }

  /** An incoming frame (the server's): large ones are remembered for `hostRead`. */
  frameIn(s: FrameSummary): void {
    if (s.dir !== 'in' || s.offset === null || s.bytes < HOST_READ_MIN_BYTES) return;
    if (s.kind !== 'response' || s.id === undefined || s.id === null) return;
    const ms = this.early.get(s.offset);
    if (ms !== undefined) {
      this.early.delete(s.offset);
      this.put(s.id, ms);
      return;
    }
    bounded(this.large).set(s.offset, s.id);
  }

  /** The host took the last byte of the frame at `offset`, `ms` after its first byte was read. */
  hostRead(offset: number, ms: number): void {
    const id = this.large.get(offset);
    if (id === undefined) {
      bounded(this.early).set(offset, ms);
      return;
    }
    this.large.delete(offset);
    this.put(id, ms);
  }

  private put(id: JsonRpcId, ms: number): void {
    const r = this.requests.get(id);
    if (!r) return;
    r.hostReadMs = Math.round(ms * 10) / 10;
    this.events.emit('request', r);
  }
}
