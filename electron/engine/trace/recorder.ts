/**
 * Trace recorder: writes one session to a trace file (shared/trace-format.ts) as it runs.
 *
 * Owns: its sink (a file, or a flight recorder's ring), its flush timer, the recording budget
 * and the gate that thins process samples (process-event.ts). Fed by: the Session's events;
 * frame text is read from its FrameStore while held. Listens: the host, via `onError`/`finish`.
 *
 * Runs in main, never on the drain path: a slow disk delays the trace, not the pipe. Lines go to
 * the sink at least every `flushMs` (≤ 1 s): a crash loses at most the last second. An
 * unwritable path or a full disk is one clear error; the session then goes on unrecorded.
 */
import type { LiveFinding } from '../../../shared/findings.js';
import { DisposableStore, listen, toDisposable } from '../../../shared/lifecycle.js';
import type { LiveMetrics } from '../../../shared/metrics.js';
import type { ProcessSnapshot } from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import type { SessionState } from '../../../shared/session-info.js';
import {
  DEFAULT_RECORDING_BUDGET_BYTES,
  type TraceEvent,
  type TraceHeader,
  type TraceRedaction,
} from '../../../shared/trace-format.js';
import type { ExitInfo } from '../../wire/protocol.js';
import { buildProbeReport } from '../session/build-report.js';
import type { FrameSummary } from '../session/frame-store.js';
import type { Session } from '../session/session.js';
import type { SessionEvents } from '../session/types.js';
import { describeWriteError } from './errors.js';
import {
  fileSink,
  HEADER_ROOM_BYTES,
  type LazyLine,
  PendingLines,
  type TraceSink,
} from './trace-sink.js';

export type { TraceSink } from './trace-sink.js';

import { findingEvent } from './finding-event.js';
import { cancellationOf, frameEvent } from './frame-event.js';
import { ProcessSampleGate, processEvent } from './process-event.js';
import { Redactor } from './redact.js';
import { traceHeader } from './trace-header.js';

export interface TraceRecorderOptions {
  path: string;
  /** Lines go here instead of a file at `path` (which then only names the recording). */
  sink?: TraceSink;
  /** Trace bytes up to which frame and stderr text is kept (default 64 MiB). */
  budgetBytes?: number;
  /** A frame larger than this is recorded without its text (a flight recorder's bound). */
  maxFrameTextBytes?: number;
  /** Request records become lines only when the sink reads them (a sink with `writeLazy`: a
   *  flight recorder's ring): copied now (the error message redacted), encoded then. Their JSON
   *  was 7-10 % of a tap's observer's CPU; frames made lazily measured no gain (performance.md,
   *  sixth round), so they stay made as they come. */
  lazyLines?: boolean;
  /** Redaction (HARDENING.md 33); on unless explicitly false. */
  redact?: boolean;
  /** How often buffered lines go to the file (ms, at most 1000). */
  flushMs?: number;
  /** Replace an existing file (default); false refuses it (the open fails with EEXIST). */
  overwrite?: boolean;
  /** Called once with a one-line message when the trace cannot be written. */
  onError?(message: string): void;
}

const METRICS_EVERY_MS = 1000;
/** About what a request's line holds (its record; an audit makes it longer). */
const LAZY_REQUEST_BYTES = 512;
/**
 * Client→server frames up to this size keep their text past the budget: replay needs them,
 * and they are the host's own, small messages (the budget bounds what the server produces).
 */
const OUT_TEXT_ALWAYS_BYTES = 64 * 1024;
/** Buffered lines beyond this go to the stream at once, not at the next timer. */
const FLUSH_AT_BYTES = 1024 * 1024;
/** Past this much unwritten data (a disk slower than the server) lines are dropped, counted. */
const MAX_BACKLOG_BYTES = 64 * 1024 * 1024;

export class TraceRecorder {
  readonly path: string;
  readonly budgetBytes: number;
  /** The one-line error, once the trace could not be written. */
  error: string | null = null;
  private stream: TraceSink | null = null;
  private readonly redactor: Redactor;
  /** Lines not yet given to the sink, in order; lazy ones only with `lazyLines`. */
  private readonly pending = new PendingLines();
  private bytes = 0;
  private frames = 0;
  private framesWithText = 0;
  private truncatedFrames = 0;
  private droppedEvents = 0;
  private lastMetricsAt = Number.NEGATIVE_INFINITY;
  private mode: string;
  private readonly processGate = new ProcessSampleGate();
  /** The engine's sample count on the last process line (the final one must match the report). */
  private processSamples = -1;
  private finishing: Promise<void> | null = null;
  /** The header as written, and the bytes of its line (without the newline). */
  private headerValue: TraceHeader | null = null;
  private headerBytes = 0;
  /** Its listeners on the session and its flush timer: released when it finishes or fails. */
  private readonly attached = new DisposableStore();

  private constructor(
    private readonly session: Session,
    private readonly options: TraceRecorderOptions,
  ) {
    this.path = options.path;
    this.budgetBytes = options.budgetBytes ?? DEFAULT_RECORDING_BUDGET_BYTES;
    this.redactor = new Redactor({ enabled: options.redact !== false });
    this.mode = this.modeKey();
  }

  /** Trace bytes written or buffered so far (what the app shows beside the record toggle). */
  get writtenBytes(): number {
    return this.bytes + this.pending.bytes;
  }

  /** Opens the file and starts recording `session`; on failure reports and records nothing. */
  static start(session: Session, options: TraceRecorderOptions): TraceRecorder {
    const r = new TraceRecorder(session, options);
    r.open();
    return r;
  }

  private open(): void {
    this.stream = this.options.sink ?? this.fileSink();
    if (!this.stream) return;
    this.headerValue = traceHeader(this.session, this.redactor, this.budgetBytes);
    // Room for the final redaction counts: the line is rewritten in place when it finishes.
    const json = JSON.stringify(this.headerValue);
    this.headerBytes = Buffer.byteLength(json) + HEADER_ROOM_BYTES;
    this.queue(`${json}${' '.repeat(HEADER_ROOM_BYTES)}\n`);
    this.flush();
    const flushMs = Math.min(1000, Math.max(10, this.options.flushMs ?? 200));
    const flushTimer = setInterval(() => this.flush(), flushMs);
    flushTimer.unref();
    this.attached.add(toDisposable(() => clearInterval(flushTimer)));
    this.attach();
  }

  private fileSink(): TraceSink | null {
    try {
      return fileSink(this.path, this.options.overwrite !== false, (e) => this.fail(e));
    } catch (e) {
      this.fail(e);
      return null;
    }
  }

  private attach(): void {
    const s = this.session;
    const on = <E extends keyof SessionEvents>(
      event: E,
      listener: (...args: SessionEvents[E]) => void,
    ): void => {
      this.attached.add(listen(s, event, listener as (...args: unknown[]) => void));
    };
    on('state', this.onState);
    on('frame', this.onFrame);
    on('stderr', this.onStderr);
    on('request', this.onRequest);
    on('finding', this.onFinding);
    on('oversize', this.onOversize);
    on('exit', this.onExit);
    on('tick', this.onTick);
    on('process', this.onProcess);
    // The tree as it is now: a recording switched on mid-session starts with a picture.
    const latest = s.evidence.latest();
    if (latest) this.onProcess(latest);
    if (s.state !== 'starting') this.onState(s.state);
  }

  private readonly onState = this.guard((state: SessionState): void => {
    this.event({ t: this.session.now(), type: 'state', state, pid: this.session.pid });
    if (state === 'stopped') void this.finish();
  });

  private readonly onFrame = this.guard((f: FrameSummary): void => {
    this.frames += 1;
    // Read at once (the store holds what it just summarised); over maxFrameTextBytes, not at all.
    const read = f.bytes <= (this.options.maxFrameTextBytes ?? f.bytes);
    const page = f.bytes > 0 && read ? this.session.frames.page(f.seq, 0, f.bytes) : null;
    const data = page?.data ?? (f.bytes === 0 ? Buffer.alloc(0) : null);
    const keep = (f.dir === 'out' && f.bytes <= OUT_TEXT_ALWAYS_BYTES) || this.fits(f.bytes);
    const e = frameEvent(f, data, keep, this.redactor);
    if (e.truncated) this.truncatedFrames += 1;
    else this.framesWithText += 1;
    this.event(e);
    const cancel =
      f.dir === 'out' && f.method === 'notifications/cancelled' && data
        ? cancellationOf(data)
        : null;
    if (cancel) {
      const reason = this.redactor.text(cancel.reason);
      this.event({ t: this.session.now(), type: 'cancel', id: cancel.id, reason });
    }
  });

  private readonly onStderr = this.guard((text: string, t: number): void => {
    const bytes = Buffer.byteLength(text);
    if (this.fits(bytes)) {
      this.event({ t, type: 'stderr', bytes, text: this.redactor.text(text) });
    } else this.event({ t, type: 'stderr', bytes, truncated: true });
  });

  private readonly onRequest = this.guard((r: RequestRecord): void => {
    // A copy: the table updates its record in place (its nested values are replaced, never
    // changed), so the copy is the record as it is now, whenever its line is made.
    const record = { ...r };
    if (r.error)
      record.error = { code: r.error.code, message: this.redactor.text(r.error.message) };
    const e: TraceEvent = { t: this.session.now(), type: 'request', record };
    if (!this.lazy()) {
      this.event(e);
      return;
    }
    e.t = Math.round(e.t * 1000) / 1000;
    this.queue({ bytes: LAZY_REQUEST_BYTES, render: () => `${JSON.stringify(e)}\n` });
  });

  /** Whether lines may be made later (`lazyLines`, and a sink that takes them). */
  private lazy(): boolean {
    return this.options.lazyLines === true && this.stream?.writeLazy !== undefined;
  }

  private readonly onFinding = this.guard((f: LiveFinding): void => {
    this.event(findingEvent(f, this.session.now(), this.redactor));
  });

  private readonly onProcess = this.guard((p: ProcessSnapshot): void => {
    if (this.processGate.offer(p)) this.processLine(p);
  });

  private processLine(p: ProcessSnapshot): void {
    this.processSamples = this.session.evidence.info().samples;
    this.event(processEvent(p, this.processSamples, this.redactor));
  }

  private readonly onOversize = this.guard((o: SessionEvents['oversize'][0]): void => {
    this.event({
      t: o.t,
      type: 'oversize',
      phase: o.phase,
      offset: o.offset,
      bytes: o.bytes,
      atEof: o.atEof,
    });
  });

  private readonly onExit = this.guard((x: ExitInfo): void => {
    this.event({ t: x.t, type: 'exit', code: x.code, signal: x.signal });
  });

  private readonly onTick = this.guard((m: LiveMetrics): void => {
    const mode = this.modeKey();
    if (mode !== this.mode) {
      this.mode = mode;
      this.event({
        t: this.session.now(),
        type: 'mode',
        readerMode: this.session.config.readerMode,
        consumerDelayMs: this.session.config.consumerDelayMs,
      });
    }
    if (m.elapsedMs - this.lastMetricsAt < METRICS_EVERY_MS) return;
    this.lastMetricsAt = m.elapsedMs;
    this.event({ t: this.session.now(), type: 'metrics', metrics: { ...m } });
  });

  /** A recorder bug must never break the session it listens to: it ends the recording. */
  private guard<A extends unknown[]>(fn: (...a: A) => void): (...a: A) => void {
    return (...a) => {
      try {
        fn(...a);
      } catch (e) {
        this.fail(e);
      }
    };
  }

  private modeKey(): string {
    return `${this.session.config.readerMode}/${this.session.config.consumerDelayMs}`;
  }

  /** Whether `n` more bytes of text stay within the recording budget. */
  private fits(n: number): boolean {
    return this.bytes + this.pending.bytes + n <= this.budgetBytes;
  }

  private event(e: TraceEvent): void {
    // µs precision is plenty and keeps lines short.
    e.t = Math.round(e.t * 1000) / 1000;
    this.queue(`${JSON.stringify(e)}\n`);
  }

  private queue(line: string | LazyLine): void {
    if (!this.stream) return;
    this.pending.push(line);
    if (this.pending.bytes >= FLUSH_AT_BYTES) this.flush();
  }

  flush(force = false): void {
    if (!this.stream || this.pending.length === 0) return;
    if (!force && this.stream.writableLength > MAX_BACKLOG_BYTES) {
      this.droppedEvents += this.pending.clear();
      return;
    }
    this.bytes += this.pending.bytes;
    this.pending.writeTo(this.stream);
  }

  /**
   * Writes the final metrics and `end` (the report, redacted) and closes the file. Called by
   * the host after the session stopped (and on its own when the session reaches `stopped`);
   * idempotent. Pass `startError` when the server could not start.
   */
  finish(o: { startError?: string | null } = {}): Promise<void> {
    if (!this.finishing) this.finishing = this.doFinish(o.startError ?? null);
    return this.finishing;
  }

  private async doFinish(startError: string | null): Promise<void> {
    this.attached.dispose();
    const stream = this.stream;
    if (!stream) return;
    const s = this.session;
    this.event({ t: s.now(), type: 'metrics', metrics: { ...s.liveMetrics() } });
    // The tree as last seen, with the final sample count: a trace cut before `end` then
    // rebuilds the report's `process` exactly (samples the gate left out are counted here).
    const latest = s.evidence.latest();
    if (latest && s.evidence.info().samples !== this.processSamples) this.processLine(latest);
    const report = this.redactor.report(buildProbeReport(s));
    this.event({
      t: s.now(),
      type: 'end',
      report,
      recovery: report.recovery,
      startError: startError === null ? null : this.redactor.text(startError),
      recording: {
        bytes: this.bytes + this.pending.bytes,
        frames: this.frames,
        framesWithText: this.framesWithText,
        truncatedFrames: this.truncatedFrames,
        droppedEvents: this.droppedEvents,
      },
    });
    this.flush(true);
    this.stream = null;
    await new Promise<void>((resolve) => stream.end(resolve));
    this.finalHeader(stream);
  }

  /** What redaction replaced so far, per rule (the header's `redaction`). */
  redaction(final: boolean): TraceRedaction | null {
    return this.redactor.enabled ? this.redactor.summary(final) : null;
  }

  /** The header again, with the final redaction counts, in the room left for them. */
  private finalHeader(sink: TraceSink): void {
    const header = this.headerValue;
    const redaction = this.redaction(true);
    if (!header || !redaction || this.error) return;
    const json = JSON.stringify({ ...header, redaction });
    const bytes = Buffer.byteLength(json);
    if (bytes > this.headerBytes) return; // cannot happen: the room holds 14 digits a rule
    const line = `${json}${' '.repeat(this.headerBytes - bytes)}`;
    sink.rewriteHeader?.(line);
  }

  private fail(e: unknown): void {
    if (this.error !== null) return;
    this.error = `trace: cannot write ${this.path}: ${describeWriteError(e)}; recording stopped, the session goes on`;
    this.attached.dispose();
    this.pending.clear();
    const stream = this.stream;
    this.stream = null;
    stream?.destroy();
    this.options.onError?.(this.error);
  }
}
