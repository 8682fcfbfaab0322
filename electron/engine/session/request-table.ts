/**
 * Request table: every request the host sent, its state and timing.
 *
 * Owns: request records, their completion promises and timeout timers. Fed by: the Session
 * (send, cancel, timeout) and the dispatcher (responses). Listens: the Session, through the
 * callbacks given at construction (changes, unexpected responses, timeouts).
 *
 * States: pending → completed | failed | cancelled | timed-out; cancelled or timed-out → late
 * when a response arrives after the cancellation (a race, or a server that ignores it). One that
 * arrived before the cancellation but was dispatched after it (the host's own queue held it)
 * was answered in time: → completed | failed. A timed-out initialize (no cancellation is ever
 * sent for it) stays timed-out, its answer recorded. A late response is accepted and shown,
 * never an error (HARDENING.md 12).
 */
import {
  type JsonRpcId,
  type RequestRecord,
  type RequestStatus,
  sentRecord,
} from '../../../shared/requests.js';
import type { FrameBytes } from '../transport/frame-bytes.js';

export interface ResponseInfo {
  bytes: number;
  t: number;
  error?: { code: number; message: string };
  /** The response's bytes (kept so a caller can parse a small result): read only for a
   *  response to a request still pending (a received frame cuts them when asked). */
  readonly data: FrameBytes;
  /** The response line's seq in the frame store. */
  seq?: number;
}

export interface RequestOutcome {
  record: RequestRecord;
  /** The response bytes, when one arrived before the request settled. */
  response: FrameBytes | null;
}

export interface RequestTableHooks {
  onChange(record: RequestRecord): void;
  onTimeout(record: RequestRecord): void;
  onUnexpected(id: JsonRpcId | null, why: string): void;
  onLate(record: RequestRecord): void;
  /** Asked before an answer after a cancellation is called late: true holds it back (it came
   *  after stdin closed; the end will show whether it was flushed at exit). */
  holdLate?(record: RequestRecord, t: number): boolean;
}

interface Entry {
  record: RequestRecord;
  settle: (o: RequestOutcome) => void;
  done: Promise<RequestOutcome>;
  timer: NodeJS.Timeout | null;
  hardTimer: NodeJS.Timeout | null;
  params: unknown;
}

/** Finished records kept for the live view; older ones are counted, not kept. */
const MAX_FINISHED = 5000;

/** A JSON-RPC id as a map key: the number 1 and the string "1" are different requests. */
export function requestKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

export class RequestTable {
  private readonly entries = new Map<string, Entry>();
  /** The pending ones, in the order they were sent: asked for on every message (the session's
   *  state, the evidence, the host's traffic), so never found by going through all of them. */
  private readonly pending = new Map<string, Entry>();
  /** Progress tokens of our requests → their entry (a flood of progress stays O(1) each). */
  private readonly byToken = new Map<JsonRpcId, Entry>();
  private nextId = 1;
  evicted = 0;

  constructor(private readonly hooks: RequestTableHooks) {}

  allocateId(): number {
    return this.nextId++;
  }

  add(
    id: JsonRpcId,
    method: string,
    params: unknown,
    opts: {
      t: number;
      requestBytes: number;
      progressToken: JsonRpcId | null;
      replayOf?: JsonRpcId;
      /** The request line's seq in the frame store, when it is already there. */
      requestSeq?: number;
    },
  ): Promise<RequestOutcome> {
    let settle!: (o: RequestOutcome) => void;
    const done = new Promise<RequestOutcome>((r) => {
      settle = r;
    });
    const record = sentRecord({
      id,
      method,
      sentAt: opts.t,
      requestBytes: opts.requestBytes,
      progressToken: opts.progressToken,
      replayOf: opts.replayOf,
    });
    if (opts.requestSeq !== undefined) record.requestSeq = opts.requestSeq;
    const entry: Entry = { record, settle, done, timer: null, hardTimer: null, params };
    const key = requestKey(id);
    this.entries.set(key, entry);
    this.pending.delete(key); // a reused id: the newer request, at the end
    this.pending.set(key, entry);
    if (opts.progressToken !== null) this.byToken.set(opts.progressToken, entry);
    this.evictFinished();
    this.hooks.onChange(record);
    return done;
  }

  /** Arms the per-request timeout; progress may push `resetMs` forward, `hardMs` always holds. */
  armTimeout(id: JsonRpcId, resetMs: number, hardMs: number): void {
    const e = this.entries.get(requestKey(id));
    if (e?.record.status !== 'pending' || resetMs <= 0) return;
    const fire = (): void => this.timeout(id);
    e.timer = setTimeout(fire, resetMs);
    if (hardMs > 0) e.hardTimer = setTimeout(fire, hardMs);
    e.timer.unref?.();
    e.hardTimer?.unref?.();
  }

  get(id: JsonRpcId): RequestRecord | undefined {
    return this.entries.get(requestKey(id))?.record;
  }

  params(id: JsonRpcId): unknown {
    return this.entries.get(requestKey(id))?.params;
  }

  all(): RequestRecord[] {
    return [...this.entries.values()].map((e) => e.record);
  }

  inFlight(): RequestRecord[] {
    return [...this.pending.values()].map((e) => e.record);
  }

  /** How many are pending (what `inFlight().length` says, without the array). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Records a response; returns the record it belonged to (or null when unknown). */
  respond(id: JsonRpcId | null, info: ResponseInfo): RequestRecord | null {
    const e = id === null ? undefined : this.entries.get(requestKey(id));
    if (!e) {
      this.hooks.onUnexpected(id, id === null ? 'response with id null' : 'unknown id');
      return null;
    }
    const r = e.record;
    if (r.responseBytes !== null) {
      this.hooks.onUnexpected(id, 'second response for the same id');
      return r;
    }
    r.latencyMs = info.t - r.sentAt;
    r.responseBytes = info.bytes;
    if (info.seq !== undefined) r.responseSeq = info.seq;
    if (info.error) r.error = info.error;
    if (r.status === 'pending') {
      this.finish(e, info.error ? 'failed' : 'completed', info.data);
    } else if (r.status === 'cancelled' || r.status === 'timed-out') {
      // Late is an answer that arrived after a cancellation (DESIGN.md). One that was here
      // first, waiting in the host's own queue when the cancellation went, was answered in time:
      // completed (or failed). With no cancellation sent (a timed-out initialize) the request
      // stays timed-out, its answer recorded.
      if (r.cancelledAt !== null && info.t > r.cancelledAt) {
        if (!this.hooks.holdLate?.(r, info.t)) {
          r.status = 'late';
          this.hooks.onLate(r);
        }
      } else if (r.cancelledAt !== null) {
        r.status = info.error ? 'failed' : 'completed';
      }
      this.hooks.onChange(r);
    }
    return r;
  }

  /** An answer after the cancellation: late (HARDENING.md 12: shown, never an error). */
  markLate(r: RequestRecord): void {
    r.status = 'late';
    this.hooks.onLate(r);
    this.hooks.onChange(r);
  }

  /** An answer once called late that was flushed at exit: back to what the request was. */
  unmarkLate(r: RequestRecord): void {
    if (r.status !== 'late') return;
    r.status = r.cancelReason === 'timeout' ? 'timed-out' : 'cancelled';
    this.hooks.onChange(r);
  }

  /** Marks a pending request cancelled (the caller sends the notification). */
  markCancelled(id: JsonRpcId, t: number, reason: string): RequestRecord | null {
    const e = this.entries.get(requestKey(id));
    if (e?.record.status !== 'pending') return null;
    e.record.cancelledAt = t;
    e.record.cancelReason = reason;
    this.finish(e, 'cancelled', null);
    return e.record;
  }

  /** A progress notification for one of our tokens; returns the record, or null if unknown. */
  /** The last progress value reported for one of our tokens (null: none yet, or unknown). */
  lastProgressFor(token: JsonRpcId): number | null {
    return this.byToken.get(token)?.record.lastProgress ?? null;
  }

  progress(token: JsonRpcId, progress: number | undefined): RequestRecord | null {
    const e = this.byToken.get(token);
    if (!e) return null;
    e.record.progressCount += 1;
    if (progress !== undefined) e.record.lastProgress = progress;
    // Progress shows the server is alive: it pushes the soft timeout, never the hard one.
    if (e.record.status === 'pending') e.timer?.refresh();
    this.hooks.onChange(e.record);
    return e.record;
  }

  private timeout(id: JsonRpcId): void {
    const e = this.entries.get(requestKey(id));
    if (e?.record.status !== 'pending') return;
    this.finish(e, 'timed-out', null);
    this.hooks.onTimeout(e.record);
  }

  /** Ends every pending request as timed-out (used when a deadline passes). */
  timeoutAll(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (const e of this.entries.values()) {
      if (e.record.status !== 'pending') continue;
      this.finish(e, 'timed-out', null);
      this.hooks.onTimeout(e.record);
      out.push(e.record);
    }
    return out;
  }

  /** Fails one pending request (it could not be sent). */
  fail(id: JsonRpcId, error: { code: number; message: string }): RequestRecord | null {
    const e = this.entries.get(requestKey(id));
    if (e?.record.status !== 'pending') return null;
    e.record.error = error;
    this.finish(e, 'failed', null);
    return e.record;
  }

  /** Fails every pending request with `error` (the server exited or the session stopped). */
  failPending(error: { code: number; message: string }): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (const e of this.entries.values()) {
      if (e.record.status !== 'pending') continue;
      e.record.error = error;
      this.finish(e, 'failed', null);
      out.push(e.record);
    }
    return out;
  }

  /** Settles whatever is pending without a state change (session stopped). */
  release(): void {
    for (const e of this.entries.values()) {
      this.clearTimers(e);
      e.settle({ record: e.record, response: null });
    }
  }

  private finish(e: Entry, status: RequestStatus, response: FrameBytes | null): void {
    e.record.status = status;
    const key = requestKey(e.record.id);
    if (this.pending.get(key) === e) this.pending.delete(key);
    this.clearTimers(e);
    this.hooks.onChange(e.record);
    e.settle({ record: e.record, response });
  }

  private clearTimers(e: Entry): void {
    if (e.timer) clearTimeout(e.timer);
    if (e.hardTimer) clearTimeout(e.hardTimer);
    e.timer = null;
    e.hardTimer = null;
  }

  private evictFinished(): void {
    if (this.entries.size <= MAX_FINISHED) return;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= MAX_FINISHED) break;
      if (e.record.status === 'pending') continue;
      this.entries.delete(k);
      if (e.record.progressToken !== null) this.byToken.delete(e.record.progressToken);
      this.evicted += 1;
    }
  }
}
