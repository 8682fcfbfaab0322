/**
 * Session: one MCP server under observation (DESIGN.md "Processes and threads").
 * Owns: the Transport (and through it the worker and the server process), the dispatcher, the
 * request table, the findings engine, the frame store, the stderr ring, the pollution ledger,
 * the evidence (process sampler), the result auditor and the tick timer; `stop()` releases each
 * one. Fed by: the host (requests, cancellations, reader mode, consumer delay) and the transport's
 * events. Listens: hosts (CLI, Electron IPC, browser mode, trace recorder) via typed events.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DisposableStore, listen, toDisposable } from '../../../shared/lifecycle.js';
import type { LiveMetrics } from '../../../shared/metrics.js';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import type { SessionConfig, SessionConfigInput } from '../../../shared/session-config.js';
import { parseSessionConfig } from '../../../shared/session-config.js';
import type { SessionState } from '../../../shared/session-info.js';
import type { ReaderMode } from '../../../shared/session-options.js';
import type { ExitInfo, WorkerCounters } from '../../wire/protocol.js';
import { type StopResult, Transport, type TransportEvents } from '../transport/transport.js';
import { Dispatcher } from './dispatcher.js';
import { SessionEvidence } from './evidence.js';
import { FindingsEngine } from './findings-engine.js';
import { FrameStore } from './frame-store.js';
import { HostTraffic } from './host-traffic.js';
import { InboundRouter, type PollutionEntry } from './inbound-router.js';
import { LateAnswers } from './late-answers.js';
import { SessionMetrics } from './live-metrics.js';
import { Outgoing } from './outgoing.js';
import { RecoveryVerdict } from './recovery-verdict.js';
import { RequestTable } from './request-table.js';
import { ResultAuditor } from './result-auditor.js';
import { watchStart } from './start-watch.js';
import { StderrRing } from './stderr-ring.js';
import { type TickState, tickStateOf } from './tick-state.js';
import { timeoutMessage } from './timeout-forensics.js';
import { raiseStopFindings, watchTransportFindings } from './transport-findings.js';
import type { RecoveryResult, SendOptions, Sent, SessionEvents, SessionOptions } from './types.js';

const TICK_MS = 100;

type TransportLimit = 'maxFrameBytes' | 'onOversize' | 'overloadPolicy';

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
  private readonly audits: ResultAuditor;
  private readonly out: Outgoing;
  private readonly metrics = new SessionMetrics();
  /** The process sampler and the rules on it, and the end's signatures. */
  readonly evidence: SessionEvidence;
  /** Tapped sessions (`pipescope tap`): the host's own lines, fed by the tap. */
  readonly hostTraffic: HostTraffic | null = null;
  /** The tick timer and the listeners on the transport: released when the session stops. */
  private readonly store = new DisposableStore();
  private readonly late: LateAnswers;
  private processExits = 0;
  private exitedOnItsOwn = false;
  private stopPromise: Promise<void> | null = null;
  private readonly started: Promise<void>;

  constructor(input: SessionConfigInput | SessionConfig, options: SessionOptions = {}) {
    super();
    this.config = parseSessionConfig(input);
    this.frames = new FrameStore(options.frameStoreBytes);
    this.findings = new FindingsEngine(this.config.budgets, (f, isNew) =>
      this.emit('finding', f, isNew),
    );
    this.recoveryVerdict = new RecoveryVerdict(this.findings, this.config.budgets.recoveryMs, () =>
      this.now(),
    );
    this.late = new LateAnswers(
      this.findings,
      () => this.requests,
      (id) => this.out.cancelledUnread(id),
      () => this.now(),
    );
    this.evidence = new SessionEvidence({
      config: this.config,
      findings: this.findings,
      now: () => this.now(),
      state: () => this.tickState(),
      onSample: (snapshot) => this.emit('process', snapshot),
      end: this.late,
      echoes: () => this.router.echoes,
    });
    this.requests = new RequestTable({
      onChange: (r) => {
        this.emit('request', r);
        this.recoveryVerdict.changed(r);
        this.evidence.end.changed(r, this.now());
      },
      onTimeout: (r) => this.onRequestTimeout(r),
      onUnexpected: (id, why) =>
        this.findings.raise('unexpected-response', `response ${String(id)}: ${why}`, this.now()),
      onLate: (r) => this.late.arrived(r),
      holdLate: (r, t) => this.evidence.end.holdLate(r, t),
    });
    this.audits = new ResultAuditor(this);
    this.router = new InboundRouter({
      onResponse: (r, data) => this.audits.offer(r, data),
      early: () => this.hostTraffic?.earlyAnswers ?? null,
      frames: this.frames,
      requests: this.requests,
      findings: this.findings,
      pollution: this.pollution,
      // Tapped: the host answers the server's pings and requests, never Pipescope.
      write: (msg) => void (options.tap ? null : this.out.write(msg)),
      onFrame: (summary) => {
        this.hostTraffic?.frameIn(summary);
        this.emit('frame', summary);
      },
    });
    const { tap, startedAtEpochMs } = options;
    const grace = this.config.stopGraceMs;
    this.transport = Transport.start({ ...this.config, stopGraceMs: grace, tap, startedAtEpochMs });
    this.out = new Outgoing({
      requests: this.requests,
      frames: this.frames,
      transport: this.transport,
      now: () => this.now(),
      requestTimeoutMs: () => this.config.requestTimeoutMs,
      blocked: () =>
        tap
          ? 'the host owns the requests of a tapped session (replay one on a fresh server)'
          : this.stopPromise || this.state !== 'running'
            ? `the session is ${this.state}`
            : null,
      onFrame: (summary) => this.emit('frame', summary),
    });
    if (tap) this.hostTraffic = new HostTraffic(this.frames, this.requests, this.out, this);
    this.dispatcher = new Dispatcher({
      consume: (f) => this.router.route(f),
      credit: (frames, bytes) => this.transport.credit(frames, bytes),
      delayMs: this.config.consumerDelayMs,
      now: () => this.now(),
    });
    this.started = watchStart(this.transport, this.config.command, {
      spawned: (pid) => {
        this.pid = pid;
        this.setState('running');
        this.evidence.start(pid);
      },
      failed: (e) => {
        this.spawnError = e;
        this.setState('failed');
      },
      release: () => void this.stop(),
      undecided: () => this.pid === null && !this.spawnError,
    });
    this.started.catch(() => {});
    this.wireTransport();
    const tickTimer = setInterval(() => this.tick(), TICK_MS);
    this.store.add(toDisposable(() => clearInterval(tickTimer)));
    this.store.add(this.evidence.watch(this.transport));
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

  private onTransport<E extends keyof TransportEvents>(
    event: E,
    listener: (...args: TransportEvents[E]) => void,
  ): void {
    this.store.add(listen(this.transport, event, listener as (...args: unknown[]) => void));
  }

  private wireTransport(): void {
    this.onTransport('frames', (frames) => this.dispatcher.enqueue(frames));
    this.onTransport('stderr', (data, at) => {
      const text = this.stderr.push(data, at);
      this.emit('stderr', text, at);
    });
    this.store.add(
      watchTransportFindings(this.transport, {
        config: this.config,
        findings: this.findings,
        frames: this.frames,
        requests: this.requests,
        oversize: (o) => this.emit('oversize', o),
        stop: () => void this.stop(),
      }),
    );
    this.onTransport('exit', (exit, hostEnded) => {
      this.exit = exit;
      this.processExits += 1;
      this.emit('exit', exit);
      // Tapped, the relay says if the host ended it first (the tap's stop may come either side).
      const stopping = this.state === 'stopping' || this.state === 'stopped';
      const own = this.hostTraffic ? !hostEnded : !stopping;
      if (own) {
        this.exitedOnItsOwn = true;
        const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
        const why = `server exited with ${how} before the session ended`;
        this.findings.raise('server-exited', why, exit.t);
      }
      // Reap the group and release the worker; draining goes on until the pipes close.
      if (own || this.hostTraffic) void this.stop();
    });
    this.onTransport('fatal', (message) => {
      this.stderr.push(Buffer.from(`[pipescope] ${message}\n`), this.now());
      void this.stop();
    });
  }

  /** Sends a request; `done` settles when it completes, fails, is cancelled or times out. */
  send(method: string, params?: Record<string, unknown>, opts: SendOptions = {}): Sent {
    return this.out.send(method, params, opts);
  }

  notify(method: string, params?: Record<string, unknown>): Promise<number> {
    return this.out.notify(method, params);
  }

  /** Sends notifications/cancelled for one of our in-flight requests (never initialize). */
  cancel(id: JsonRpcId, reason = 'cancelled by user'): { ok: true } | { ok: false; error: string } {
    return this.out.cancel(id, this.hostTraffic ? `sent by Pipescope: ${reason}` : reason);
  }

  /** Re-sends a past request with a new id. */
  replay(id: JsonRpcId): Sent | null {
    return this.out.replay(id);
  }

  private onRequestTimeout(r: RequestRecord): void {
    const state = this.tickState();
    const message = timeoutMessage(r, {
      state,
      outstanding: [r, ...this.requests.inFlight()],
      stdinWaitMs: this.metrics.latest.stdinWaitMs,
      answerQueued: this.dispatcher.holdsResponse(r.id),
      process: this.evidence.processLine(state.t),
    });
    // No cancellation for initialize (DESIGN.md): nothing for a later answer to be late after.
    if (r.method !== 'initialize') {
      r.cancelledAt = this.now();
      r.cancelReason = 'timeout';
    }
    this.findings.raise('request-timed-out', message, state.t, r.id);
    if (r.method !== 'initialize') this.out.sendCancellation(r.id, 'timeout');
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
    const send = () => this.send(method, undefined, { timeoutMs }).done;
    const backlog = () => this.hostBacklog();
    return this.recoveryVerdict.probe(send, backlog, timeoutMs, opts.awaitQueue === true);
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

  setReaderMode(mode: ReaderMode): void {
    this.config.readerMode = mode;
    this.transport.setReaderMode(mode);
  }

  /** A host slow to read the server's logs (`check`): bytes a second; null: drain (default). */
  setStderrPace(bytesPerSecond: number | null): void {
    this.transport.setStderrPace(bytesPerSecond);
  }

  setConsumerDelay(ms: number): void {
    this.config.consumerDelayMs = ms;
    this.dispatcher.setDelay(ms);
  }

  /** Changes the transport limits live (the demo controls). */
  setLimits(limits: Partial<Pick<SessionConfig, TransportLimit>>): void {
    for (const k of ['maxFrameBytes', 'onOversize', 'overloadPolicy'] as const) {
      if (limits[k] !== undefined) Object.assign(this.config, { [k]: limits[k] });
    }
    this.transport.setLimits(limits);
  }

  private tickState(): TickState {
    return tickStateOf(this.transport.lastCounters, {
      t: this.now(),
      alive: this.pid !== null && this.exit === null,
      readerMode: this.config.readerMode,
      responsesOwed: this.requests.pendingCount,
      tapped: this.hostTraffic !== null,
      dispatcherDepth: this.metrics.latest.dispatcherDepth,
      oldestQueuedAt: this.dispatcher.oldestArrival(),
    });
  }

  private tick(): void {
    const m = this.liveMetrics();
    const counted = this.transport.lastCounters?.t ?? Number.NEGATIVE_INFINITY;
    this.recoveryVerdict.tick(counted, this.hostBacklog());
    if (this.state === 'running') {
      const state = this.evidence.withProof(this.tickState());
      this.findings.evaluate(state);
      this.evidence.evaluate(state, this.requests.inFlight());
    }
    this.emit('tick', m);
  }

  liveMetrics(): LiveMetrics {
    return this.metrics.update(this.transport.lastCounters, {
      t: this.now(),
      mainQueueDepth: this.dispatcher.depth,
      ...this.dispatcher.waits(this.now()),
      cancellationsSent: this.out.cancellationsSent,
      lateResponses: this.late.count,
      processExits: this.processExits,
      requestsInFlight: this.requests.pendingCount,
      notifications: this.router.notifications,
      stderrDroppedBytes: this.stderrDropped(),
    });
  }

  /** stderr bytes not kept: dropped by the worker while main was behind, or by the ring. */
  private stderrDropped(): number {
    return this.stderr.droppedBytes + (this.transport.lastCounters?.stderrDroppedBytes ?? 0);
  }

  /** Stops the server through the ladder and releases everything this session owns. */
  stop(): Promise<void> {
    if (!this.stopPromise) this.stopPromise = this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    if (this.state !== 'failed') this.setState('stopping');
    this.evidence.end.stopAsked(this.now(), this.transport.lastCounters?.readingStdout ?? true);
    const result: StopResult = await this.transport.stop('session stop');
    this.dispatcher.stop();
    await this.audits.close();
    this.recoveryVerdict.flush();
    if (result.exit && !this.exit) this.exit = result.exit;
    this.evidence.ended(this.exit, this.requests.all(), this.exitedOnItsOwn);
    raiseStopFindings(this.findings, this.now(), {
      left: result.left,
      stderrDropped: this.stderrDropped(),
      stderrDroppedInWorker: this.transport.lastCounters?.stderrDroppedBytes ?? 0,
    });
    this.hostTraffic?.earlyAnswers.dispose();
    this.store.dispose();
    this.liveMetrics();
    // Nothing can answer now: a request still pending failed (never left hanging forever).
    const why = this.exitedOnItsOwn ? 'the server exited' : 'the session stopped first';
    this.requests.failPending({ code: -32000, message: `no response: ${why}` });
    this.requests.release();
    if (this.state !== 'failed') this.setState('stopped');
    this.removeAllListeners('tick');
  }
}
