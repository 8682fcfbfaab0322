/**
 * Session: one MCP server under observation (DESIGN.md "Processes and threads").
 *
 * Owns: the Transport (and through it the worker and the server process), the dispatcher, the
 * request table, the findings engine, the frame store, the stderr ring, the pollution ledger
 * and the tick timer; `stop()` releases every one of them. Fed by: the host (requests,
 * cancellations, reader mode, consumer delay) and the transport's events. Listens: hosts
 * (CLI, Electron IPC, browser mode, trace recorder) through typed events.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { LiveMetrics } from '../../../shared/metrics.js';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import {
  parseSessionConfig,
  type SessionConfig,
  type SessionConfigInput,
} from '../../../shared/session-config.js';
import type { SessionState } from '../../../shared/session-info.js';
import type { ReaderMode } from '../../../shared/session-options.js';
import { type ExitInfo, SPILL_MAX_FRAMES, type WorkerCounters } from '../../wire/protocol.js';
import { type StopResult, Transport } from '../transport/transport.js';
import { Dispatcher } from './dispatcher.js';
import { FindingsEngine } from './findings-engine.js';
import { FrameStore } from './frame-store.js';
import { InboundRouter, type PollutionEntry } from './inbound-router.js';
import { SessionMetrics } from './live-metrics.js';
import { RecoveryVerdict } from './recovery-verdict.js';
import { RequestTable } from './request-table.js';
import { StderrRing } from './stderr-ring.js';
import {
  type RecoveryResult,
  type SendOptions,
  type Sent,
  SessionError,
  type SessionEvents,
} from './types.js';

export type { PollutionEntry } from './inbound-router.js';
export type {
  RecoveryResult,
  SendOptions,
  Sent,
  SessionEvents,
  SessionState,
} from './types.js';
export { SessionError } from './types.js';

const TICK_MS = 100;
/** Hard cap on a request's lifetime relative to its (soft, progress-reset) timeout. */
const HARD_TIMEOUT_FACTOR = 10;

export class Session extends EventEmitter<SessionEvents> {
  readonly id = randomUUID();
  readonly config: SessionConfig;
  state: SessionState = 'starting';
  pid: number | null = null;
  exit: ExitInfo | null = null;
  spawnError: { code: string; message: string } | null = null;
  readonly frames: FrameStore;
  readonly stderr = new StderrRing();
  readonly pollution: PollutionEntry[] = [];
  readonly findings: FindingsEngine;
  readonly requests: RequestTable;
  private readonly recoveryVerdict: RecoveryVerdict;
  private readonly transport: Transport;
  private readonly dispatcher: Dispatcher;
  private readonly router: InboundRouter;
  private readonly metrics = new SessionMetrics();
  private readonly tickTimer: NodeJS.Timeout;
  private readerMode: ReaderMode;
  private cancellationsSent = 0;
  private lateResponses = 0;
  private processExits = 0;
  private exitedOnItsOwn = false;
  /** Requests whose cancellation went out while the reader was not reading stdout. */
  private readonly cancelledWhileNotReading = new Set<JsonRpcId>();
  private stopPromise: Promise<void> | null = null;
  private readonly started: Promise<void>;

  constructor(
    input: SessionConfigInput | SessionConfig,
    options: { frameStoreBytes?: number } = {},
  ) {
    super();
    this.config = parseSessionConfig(input);
    this.readerMode = this.config.readerMode;
    this.frames = new FrameStore(options.frameStoreBytes);
    this.findings = new FindingsEngine(this.config.budgets, (f, isNew) =>
      this.emit('finding', f, isNew),
    );
    this.recoveryVerdict = new RecoveryVerdict(this.findings, this.config.budgets.recoveryMs, () =>
      this.now(),
    );
    this.requests = new RequestTable({
      onChange: (r) => {
        this.emit('request', r);
        this.recoveryVerdict.changed(r);
      },
      onTimeout: (r) => this.onRequestTimeout(r),
      onUnexpected: (id, why) =>
        this.findings.raise('unexpected-response', `response ${String(id)}: ${why}`, this.now()),
      onLate: (r) => {
        this.lateResponses += 1;
        // A response stuck in a pipe the host was not reading is late through no fault of the
        // server's: count it as late, but do not blame the server for ignoring the cancellation.
        if (this.cancelledWhileNotReading.has(r.id)) return;
        this.findings.raise(
          'cancel-ignored',
          `request ${String(r.id)} (${r.method}) was answered ${Math.round(
            this.now() - (r.cancelledAt ?? r.sentAt),
          )} ms after its cancellation`,
          this.now(),
          r.id,
        );
      },
    });
    this.router = new InboundRouter({
      frames: this.frames,
      requests: this.requests,
      findings: this.findings,
      pollution: this.pollution,
      write: (msg) => void this.writeMessage(msg),
      onFrame: (summary) => this.emit('frame', summary),
    });
    this.transport = Transport.start({ ...this.config, stopGraceMs: this.config.stopGraceMs });
    this.dispatcher = new Dispatcher({
      consume: (f) => this.router.route(f),
      credit: (frames, bytes) => this.transport.credit(frames, bytes),
      delayMs: this.config.consumerDelayMs,
    });
    this.started = new Promise((resolve, reject) => {
      this.transport.once('spawned', (pid) => {
        this.pid = pid;
        this.setState('running');
        resolve();
      });
      this.transport.once('spawn-error', (e) => {
        this.spawnError = e;
        this.setState('failed');
        reject(new SessionError(e.code, spawnMessage(this.config.command, e)));
        // Release the worker and the tick timer: a failed start owns nothing afterwards.
        void this.stop();
      });
    });
    this.started.catch(() => {});
    this.wireTransport();
    this.tickTimer = setInterval(() => this.tick(), TICK_MS);
  }

  /** Resolves once the server process is running; rejects with a SessionError if it cannot start. */
  whenStarted(): Promise<void> {
    return this.started;
  }

  now(): number {
    return this.transport.now();
  }

  /** The worker's latest raw counters (byte invariant: stdoutBytes = lineBytes + partial). */
  counters(): WorkerCounters | null {
    return this.transport.lastCounters;
  }

  private setState(s: SessionState): void {
    this.state = s;
    this.emit('state', s);
  }

  private wireTransport(): void {
    const t = this.transport;
    t.on('frames', (frames) => {
      this.dispatcher.enqueue(frames);
    });
    t.on('stderr', (data, at) => {
      const text = this.stderr.push(data, at);
      this.emit('stderr', text, at);
    });
    t.on('oversize', (o) => {
      this.emit('oversize', o);
      if (o.phase === 'start') {
        this.frames.add(
          { dir: 'in', t: o.t, offset: o.offset, kind: 'oversize', problem: 'over maxFrameBytes' },
          Buffer.alloc(0),
        );
        this.findings.raise(
          'oversize-frame',
          `a frame at offset ${o.offset} passed maxFrameBytes (${this.config.maxFrameBytes} bytes); ` +
            (this.config.onOversize === 'terminate'
              ? 'session ended'
              : 'discarded to the next newline'),
          o.t,
        );
        // The worker is already running the ladder: the session is stopping, so the exit that
        // follows is ours, not a `server-exited`.
        if (this.config.onOversize === 'terminate') void this.stop();
      }
    });
    t.on('overload', (o) => {
      this.findings.raise(
        'dispatch-overflow',
        `worker spill full: ${o.frames} frames, ${o.bytes} bytes held (bounds: ` +
          `${this.config.spillMaxBytes} bytes, ${SPILL_MAX_FRAMES} frames); policy ${o.policy}`,
        o.t,
      );
      if (o.policy === 'terminate') void this.stop();
    });
    t.on('stdout-end', (partial, at) => {
      if (partial > 0) {
        this.findings.raise(
          'truncated-at-exit',
          `stdout ended with ${partial} bytes of an unterminated frame (never delivered)`,
          at,
        );
      }
    });
    t.on('exit', (exit) => {
      this.exit = exit;
      this.processExits += 1;
      this.emit('exit', exit);
      if (this.state !== 'stopping' && this.state !== 'stopped') {
        this.exitedOnItsOwn = true;
        const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
        this.findings.raise(
          'server-exited',
          `server exited with ${how} before the session ended`,
          exit.t,
        );
        // Reap the group and release the worker; draining goes on until the pipes close.
        void this.stop();
      }
    });
    t.on('fatal', (message) => {
      this.stderr.push(Buffer.from(`[pipescope] ${message}\n`), this.now());
      void this.stop();
    });
  }

  private async writeMessage(msg: object): Promise<number> {
    const line = Buffer.from(`${JSON.stringify(msg)}\n`, 'utf8');
    const body = line.subarray(0, line.length - 1);
    const m = msg as { id?: JsonRpcId; method?: string; result?: unknown; error?: unknown };
    const kind =
      m.method === undefined ? 'response' : m.id === undefined ? 'notification' : 'request';
    const summary = this.frames.add(
      { dir: 'out', t: this.now(), offset: null, kind, id: m.id, method: m.method },
      body,
    );
    this.emit('frame', summary);
    await this.transport.write(line);
    return body.length;
  }

  /** Sends a request; `done` settles when it completes, fails, is cancelled or times out. */
  send(method: string, params?: Record<string, unknown>, opts: SendOptions = {}): Sent {
    const id = this.requests.allocateId();
    let body = params;
    let progressToken: JsonRpcId | null = null;
    if (opts.progress) {
      progressToken = `pipescope-${id}`;
      const meta = (params?._meta as Record<string, unknown> | undefined) ?? {};
      body = { ...params, _meta: { ...meta, progressToken } };
    }
    const msg = { jsonrpc: '2.0', id, method, ...(body === undefined ? {} : { params: body }) };
    const requestBytes = Buffer.byteLength(JSON.stringify(msg));
    const done = this.requests.add(id, method, params, {
      t: this.now(),
      requestBytes,
      progressToken,
      replayOf: opts.replayOf,
    });
    if (this.stopPromise || this.state !== 'running') {
      // Nothing can carry it: fail it now rather than leave a promise no timer will settle.
      this.requests.fail(id, { code: -32000, message: `not sent: the session is ${this.state}` });
      return { id, done };
    }
    const timeout = opts.timeoutMs ?? this.config.requestTimeoutMs;
    if (timeout > 0) this.requests.armTimeout(id, timeout, timeout * HARD_TIMEOUT_FACTOR);
    void this.writeMessage(msg);
    return { id, done };
  }

  notify(method: string, params?: Record<string, unknown>): Promise<number> {
    return this.writeMessage({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  /** Sends notifications/cancelled for one of our in-flight requests (never initialize). */
  cancel(id: JsonRpcId, reason = 'cancelled by user'): { ok: true } | { ok: false; error: string } {
    const r = this.requests.get(id);
    if (!r) return { ok: false, error: `no request with id ${String(id)}` };
    if (r.method === 'initialize') return { ok: false, error: 'initialize can never be cancelled' };
    if (r.status !== 'pending') return { ok: false, error: `request ${String(id)} is ${r.status}` };
    this.requests.markCancelled(id, this.now(), reason);
    this.sendCancellation(id, reason);
    return { ok: true };
  }

  private sendCancellation(id: JsonRpcId, reason: string): void {
    this.cancellationsSent += 1;
    if (this.transport.lastCounters?.readingStdout === false) this.cancelledWhileNotReading.add(id);
    void this.notify('notifications/cancelled', { requestId: id, reason });
  }

  private onRequestTimeout(r: RequestRecord): void {
    const s = this.tickState();
    const forensics =
      `outstanding [${[r, ...this.requests.inFlight()].map((x) => String(x.id)).join(', ')}], ` +
      `${s.pendingBytes} bytes since last newline, last stdout byte ` +
      `${s.lastStdoutByteAt === null ? 'never' : `${Math.round(s.t - s.lastStdoutByteAt)} ms ago`}, ` +
      `${r.progressCount} progress notifications, reader ${this.readerMode}, ` +
      `dispatcher depth ${s.dispatcherDepth}, stdin wait ${Math.round(this.metrics.latest.stdinWaitMs)} ms`;
    // No cancellation for initialize (DESIGN.md): nothing for a later answer to be late after.
    if (r.method !== 'initialize') {
      r.cancelledAt = this.now();
      r.cancelReason = 'timeout';
    }
    // The host's own timer, while the answer already waits in its queue: say so.
    const waiting = this.dispatcher.holdsResponse(r.id)
      ? '; its answer was already waiting in the host queue'
      : '';
    this.findings.raise(
      'request-timed-out',
      `request ${String(r.id)} (${r.method}) timed out after ${Math.round(s.t - r.sentAt)} ms; ` +
        `${r.method === 'initialize' ? 'no cancellation (initialize)' : 'cancellation sent'}${waiting}. State: ${forensics}`,
      s.t,
      r.id,
    );
    if (r.method !== 'initialize') this.sendCancellation(r.id, 'timeout');
  }

  /** Times out every pending request now (a host deadline passed). */
  timeoutPending(): RequestRecord[] {
    return this.requests.timeoutAll();
  }

  /** The recovery probe: a small request that must complete fast after a cancellation. */
  async recover(
    timeoutMs = Math.max(this.config.budgets.recoveryMs * 5, 2000),
    opts: { awaitQueue?: boolean } = {},
  ): Promise<RecoveryResult> {
    const method = this.config.recoveryMethod ?? 'ping';
    // A stopped session has nothing to recover; say so without blaming the server.
    if (this.state !== 'running') return { method, ok: false, latencyMs: null };
    const { done } = this.send(method, undefined, { timeoutMs });
    const { record } = await done;
    const now = this.recoveryVerdict.settle(record, this.hostBacklog());
    // `awaitQueue` (the app): a verdict put off behind the host queue is waited for; the probe,
    // bound to its deadline, takes the provisional one (the report has the final).
    if (!opts.awaitQueue || !this.recoveryVerdict.awaitsQueue) return now;
    // At most as long again; the verdict itself still waits for the answer or the queue.
    return (await this.recoveryVerdict.verdict(timeoutMs)) ?? now;
  }

  /** The recovery probe's result (its verdict may wait for the host queue: RecoveryVerdict). */
  get recovery(): RecoveryResult | null {
    return this.recoveryVerdict.result;
  }

  /** The recovery probe timed out behind queued messages: its verdict waits for the queue. */
  get recoveryAwaitsQueue(): boolean {
    return this.recoveryVerdict.awaitsQueue;
  }

  private hostBacklog(): number {
    return this.dispatcher.depth + (this.transport.lastCounters?.spillFrames ?? 0);
  }

  /** Re-sends a past request with a new id. */
  replay(id: JsonRpcId): Sent | null {
    const r = this.requests.get(id);
    if (!r || r.method === 'initialize') return null;
    const params = this.requests.params(id) as Record<string, unknown> | undefined;
    return this.send(r.method, params, { progress: r.progressToken !== null, replayOf: id });
  }

  setReaderMode(mode: ReaderMode): void {
    this.readerMode = mode;
    this.config.readerMode = mode;
    this.transport.setReaderMode(mode);
  }

  getReaderMode(): ReaderMode {
    return this.readerMode;
  }

  setConsumerDelay(ms: number): void {
    this.config.consumerDelayMs = ms;
    this.dispatcher.setDelay(ms);
  }

  /** Changes the transport limits live (the demo controls). */
  setLimits(
    limits: Partial<Pick<SessionConfig, 'maxFrameBytes' | 'onOversize' | 'overloadPolicy'>>,
  ): void {
    if (limits.maxFrameBytes !== undefined) this.config.maxFrameBytes = limits.maxFrameBytes;
    if (limits.onOversize !== undefined) this.config.onOversize = limits.onOversize;
    if (limits.overloadPolicy !== undefined) this.config.overloadPolicy = limits.overloadPolicy;
    this.transport.setLimits(limits);
  }

  private tickState(): import('./findings-engine.js').TickState {
    const c = this.transport.lastCounters;
    const m = this.metrics.latest;
    return {
      t: this.now(),
      alive: this.pid !== null && this.exit === null,
      stdoutEnded: c?.stdoutEnded ?? false,
      readerMode: this.readerMode,
      readingStdout: c?.readingStdout ?? false,
      notReadingSince: c?.notReadingSince ?? null,
      pendingBytes: c?.pendingBytes ?? 0,
      lastStdoutByteAt: c?.lastStdoutByteAt ?? null,
      responsesOwed: this.requests.inFlight().length,
      dispatcherLongestWaitMs: c?.dispatcherLongestWaitMs ?? 0,
      dispatcherDepth: m.dispatcherDepth,
      queueOldestAgeMs: ((): number => {
        const oldest = this.dispatcher.oldestArrival();
        return oldest === null ? 0 : this.now() - oldest;
      })(),
      stdinPendingSince: c?.stdinPendingSince ?? null,
      stdinPendingBytes: c?.stdinPendingBytes ?? 0,
    };
  }

  private tick(): void {
    const m = this.liveMetrics();
    // A recovery verdict put off behind the host queue: the queue is empty — as counters taken
    // after the probe timed out show it (whatever was read before them has reached main, in
    // order on one port) — so it is judged.
    const counted = this.transport.lastCounters?.t ?? Number.NEGATIVE_INFINITY;
    if (this.recoveryVerdict.awaitsSince(counted) && this.hostBacklog() === 0) {
      this.recoveryVerdict.flush();
    }
    if (this.state === 'running') this.findings.evaluate(this.tickState());
    this.emit('tick', m);
  }

  liveMetrics(): LiveMetrics {
    return this.metrics.update(this.transport.lastCounters, {
      t: this.now(),
      mainQueueDepth: this.dispatcher.depth,
      cancellationsSent: this.cancellationsSent,
      lateResponses: this.lateResponses,
      processExits: this.processExits,
      requestsInFlight: this.requests.inFlight().length,
      notifications: this.router.notifications,
      stderrDroppedBytes: this.stderr.droppedBytes,
    });
  }

  /** Stops the server through the ladder and releases everything this session owns. */
  stop(): Promise<void> {
    if (!this.stopPromise) this.stopPromise = this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    if (this.state !== 'failed') this.setState('stopping');
    const result: StopResult = await this.transport.stop('session stop');
    this.dispatcher.stop();
    this.recoveryVerdict.flush();
    if (result.exit && !this.exit) this.exit = result.exit;
    if (this.stderr.droppedBytes > 0) {
      this.findings.raise(
        'stderr-dropped',
        `${this.stderr.droppedBytes} bytes of stderr dropped from the ring`,
        this.now(),
      );
    }
    clearInterval(this.tickTimer);
    this.liveMetrics();
    // Nothing can answer now: a request still pending failed (never left hanging forever).
    const why = this.exitedOnItsOwn
      ? 'no response: the server exited'
      : 'no response before the session stopped';
    this.requests.failPending({ code: -32000, message: why });
    this.requests.release();
    if (this.state !== 'failed') this.setState('stopped');
    this.removeAllListeners('tick');
  }
}

function spawnMessage(command: string, e: { code: string; message: string }): string {
  if (e.code === 'ENOENT')
    return `cannot start ${JSON.stringify(command)}: command not found (ENOENT)`;
  if (e.code === 'EACCES')
    return `cannot start ${JSON.stringify(command)}: permission denied (EACCES)`;
  return `cannot start ${JSON.stringify(command)}: ${e.message}`;
}
