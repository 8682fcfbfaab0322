/**
 * What a session writes to its server: requests (ids, progress tokens, timeouts), notifications,
 * cancellations and replays, each one line and each recorded in the frame store as an outgoing
 * frame. Owns: the count of cancellations sent and which of them went out while the reader was
 * not reading stdout. Fed by: the Session's public calls and its request timeouts. Writes
 * through: the Transport.
 */
import type { JsonRpcId } from '../../../shared/requests.js';
import type { Transport } from '../transport/transport.js';
import type { FrameStore, FrameSummary } from './frame-store.js';
import type { RequestTable } from './request-table.js';
import type { SendOptions, Sent } from './types.js';

/** Hard cap on a request's lifetime relative to its (soft, progress-reset) timeout. */
const HARD_TIMEOUT_FACTOR = 10;

export interface OutgoingDeps {
  requests: RequestTable;
  frames: FrameStore;
  transport: Transport;
  now(): number;
  /** The timeout of a request that names none (the session config's). */
  requestTimeoutMs(): number;
  /** Why nothing can be sent now (the session is not running, or stopping), or null. */
  blocked(): string | null;
  onFrame(summary: FrameSummary): void;
}

export class Outgoing {
  cancellationsSent = 0;
  /** Requests whose cancellation went out while the reader was not reading stdout. */
  private readonly cancelledWhileNotReading = new Set<JsonRpcId>();

  constructor(private readonly d: OutgoingDeps) {}

  /** Writes one message as one line; resolves with its bytes once the OS took it. */
  write(msg: object): Promise<number> {
    return this.writeFrame(msg).written;
  }

  /** write(), and the frame store seq of the line (known at once). */
  private writeFrame(msg: object): { seq: number; written: Promise<number> } {
    const line = Buffer.from(`${JSON.stringify(msg)}\n`, 'utf8');
    const body = line.subarray(0, line.length - 1);
    const m = msg as { id?: JsonRpcId; method?: string; result?: unknown; error?: unknown };
    const kind =
      m.method === undefined ? 'response' : m.id === undefined ? 'notification' : 'request';
    const summary = this.d.frames.add(
      { dir: 'out', t: this.d.now(), offset: null, kind, id: m.id, method: m.method },
      body,
    );
    this.d.onFrame(summary);
    const written = this.d.transport.write(line).then(() => body.length);
    return { seq: summary.seq, written };
  }

  /** Sends a request; `done` settles when it completes, fails, is cancelled or times out. */
  send(method: string, params?: Record<string, unknown>, opts: SendOptions = {}): Sent {
    const requests = this.d.requests;
    const id = requests.allocateId();
    let body = params;
    let progressToken: JsonRpcId | null = null;
    if (opts.progress) {
      progressToken = `pipescope-${id}`;
      const meta = (params?._meta as Record<string, unknown> | undefined) ?? {};
      body = { ...params, _meta: { ...meta, progressToken } };
    }
    const msg = { jsonrpc: '2.0', id, method, ...(body === undefined ? {} : { params: body }) };
    const requestBytes = Buffer.byteLength(JSON.stringify(msg));
    const done = requests.add(id, method, params, {
      t: this.d.now(),
      requestBytes,
      progressToken,
      replayOf: opts.replayOf,
    });
    const blocked = this.d.blocked();
    if (blocked !== null) {
      // Nothing can carry it: fail it now rather than leave a promise no timer will settle.
      requests.fail(id, { code: -32000, message: `not sent: ${blocked}` });
      return { id, done };
    }
    const timeout = opts.timeoutMs ?? this.d.requestTimeoutMs();
    if (timeout > 0) requests.armTimeout(id, timeout, timeout * HARD_TIMEOUT_FACTOR);
    const { seq, written } = this.writeFrame(msg);
    void written;
    const record = requests.get(id);
    if (record) record.requestSeq = seq;
    return { id, done };
  }

  notify(method: string, params?: Record<string, unknown>): Promise<number> {
    return this.write({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  /** Sends notifications/cancelled for one of our in-flight requests (never initialize). */
  cancel(id: JsonRpcId, reason: string): { ok: true } | { ok: false; error: string } {
    const r = this.d.requests.get(id);
    if (!r) return { ok: false, error: `no request with id ${String(id)}` };
    if (r.method === 'initialize') return { ok: false, error: 'initialize can never be cancelled' };
    if (r.status !== 'pending') return { ok: false, error: `request ${String(id)} is ${r.status}` };
    this.d.requests.markCancelled(id, this.d.now(), reason);
    this.sendCancellation(id, reason);
    return { ok: true };
  }

  /** A cancellation the host sent (tapped sessions): counted as one sent on this session. */
  countCancellation(id: JsonRpcId): void {
    this.cancellationsSent += 1;
    if (this.d.transport.lastCounters?.readingStdout === false)
      this.cancelledWhileNotReading.add(id);
  }

  /** The notification itself (a user's Cancel, or a timeout). */
  sendCancellation(id: JsonRpcId, reason: string): void {
    this.countCancellation(id);
    void this.notify('notifications/cancelled', { requestId: id, reason });
  }

  /**
   * Whether `id` was cancelled while the host was not reading stdout: a response stuck in a
   * pipe the host was not reading is late through no fault of the server's.
   */
  cancelledUnread(id: JsonRpcId): boolean {
    return this.cancelledWhileNotReading.has(id);
  }

  /** Re-sends a past request with a new id. */
  replay(id: JsonRpcId): Sent | null {
    const r = this.d.requests.get(id);
    if (!r || r.method === 'initialize') return null;
    const params = this.d.requests.params(id) as Record<string, unknown> | undefined;
    return this.send(r.method, params, { progress: r.progressToken !== null, replayOf: id });
  }
}
