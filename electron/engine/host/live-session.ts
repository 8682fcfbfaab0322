/**
 * A live session as the host holds it: the Session (and through it the server), the info the
 * session list shows, the snapshot deltas for subscribers (snapshot-builder.ts), the trace
 * recorder when Record is on, and the config it was started with (Restart, Edit & retry).
 *
 * Owns: its listeners on the Session (released by `dispose`, when the host forgets it), its
 * recorder, the sparkline points of the last process samples (for a new subscriber) and, once
 * the server is over, the timer that keeps its ages counting. Fed by: the session's events and
 * the handlers (handlers/*.ts). Listens: the SessionManager, through `changed` (the session
 * list) and `notice`.
 *
 * When the server is over (issue 22) the values must not freeze as they were at its last
 * byte: snapshots then carry resting metrics (rates 0, the last byte's age counting), one a
 * second, and who ended it (info.end: the server, a person, Pipescope).
 */
import type { FrameFindPage, FramePage, FrameSearchPage } from '../../../shared/frames.js';
import type { ChannelPayload } from '../../../shared/host-api.js';
import { DisposableStore, listen, toDisposable } from '../../../shared/lifecycle.js';
import type { ProcessAvailability } from '../../../shared/process.js';
import { err, ok, type Result } from '../../../shared/result.js';
import {
  isEnded,
  PROCESS_HISTORY_SAMPLES,
  type ProcessPoint,
  processPoints,
  type SeriesPoint,
  type SessionEnd,
  type SessionInfo,
  type SessionSnapshot,
} from '../../../shared/session-info.js';
import type { ExportFormat, TraceExport } from '../../../shared/trace-api.js';
import {
  findInFrame,
  type Needle,
  type SearchOptions,
  searchFrames,
  storeSource,
} from '../session/frame-search.js';
import type { Session } from '../session/session.js';
import type { SessionEvents } from '../session/types.js';
import { processAvailabilityOf } from '../trace/process-event.js';
import type { TraceRecorder } from '../trace/recorder.js';
import type { HostedSession } from './hosted.js';
import { defaultTracePath, exportRecording, recordingPath, startRecording } from './recording.js';
import { cutPreview, pointOf, restingMetrics, SnapshotBuilder } from './snapshot-builder.js';

/** What a (re)connecting renderer is sent of the past: the renderer keeps as much. */
const HISTORY = { points: 600, frameSizes: 2000, frames: 5000, stderrChars: 256 * 1024 };
/** How often an ended session's snapshot is rebuilt: its ages count in seconds. */
export const ENDED_REFRESH_MS = 1000;

export interface LiveSessionEvents {
  /** The session list changed (state, pid, recording). */
  changed(): void;
  /** Something the user should know that no call returned (a recording stopped on a full disk). */
  notice(text: string): void;
  /** The host forgets the session (closed). */
  closed(id: string): void;
}

export class LiveSession implements HostedSession {
  readonly deltas: SnapshotBuilder;
  recorder: TraceRecorder | null = null;
  /** The chart points and frame sizes of the snapshots built so far (bounded, newest kept). */
  private readonly points: SeriesPoint[] = [];
  private readonly sizes: SessionSnapshot['frameSizes'] = [];
  /** Sparkline points of the last PROCESS_HISTORY_SAMPLES samples, one array per sample. */
  private readonly processTrail: ProcessPoint[][] = [];
  private readonly store = new DisposableStore();
  /** Who asked the server to stop first (a person, or Pipescope's own policies). */
  private stopAsked: SessionEnd['by'] | null = null;
  private exitedOnItsOwn = false;
  /** Once the server is over: when (session ms) and the chart point it ended on. */
  private ended: { ms: number; point: SeriesPoint | null } | null = null;

  constructor(
    readonly session: Session,
    readonly info: SessionInfo,
    private readonly events: LiveSessionEvents,
    /** The validated `session:start` payload it came from (null: not started by a person). */
    readonly launch: ChannelPayload<'session:start'> | null = null,
  ) {
    this.deltas = new SnapshotBuilder(undefined, undefined, (f) => session.frames.previewOf(f));
    this.wire();
  }

  get id(): string {
    return this.session.id;
  }

  infoNow(): SessionInfo {
    return { ...this.info };
  }

  private on<E extends keyof SessionEvents>(
    event: E,
    listener: (...args: SessionEvents[E]) => void,
  ): void {
    this.store.add(listen(this.session, event, listener as (...args: unknown[]) => void));
  }

  private wire(): void {
    const s = this.session;
    const d = this.deltas;
    this.on('frame', (f) => d.addFrame(f));
    this.on('request', (r) => d.addRequest(r));
    this.on('stderr', (text) => d.addStderr(text));
    this.on('finding', () => d.touch());
    this.on('tick', () => d.touch());
    this.on('process', (p) => {
      d.setProcess(p);
      keepNewest(this.processTrail, [processPoints(p)], PROCESS_HISTORY_SAMPLES);
    });
    this.on('state', (state) => {
      this.info.state = state;
      this.info.pid = s.pid;
      if (isEnded(state) && !this.ended) this.markEnded(state === 'failed');
      d.touch();
      this.events.changed();
      // After this emit: the recorder's own 'stopped' listener writes the state line first
      // (finishing here, in the same emit, closed the file before it could).
      const recorder = this.recorder;
      if (state === 'stopped' && recorder)
        queueMicrotask(() => void this.finishRecording(recorder));
    });
    this.on('exit', (exit) => {
      // The Session tells its listeners before it reacts: still running means nobody asked.
      if (s.state === 'running' || s.state === 'starting') this.exitedOnItsOwn = true;
      this.info.exit = { code: exit.code, signal: exit.signal };
      d.touch();
    });
  }

  /** The server is over: say who ended it, and keep the snapshot's ages counting. */
  private markEnded(neverStarted: boolean): void {
    this.ended = { ms: this.session.now(), point: null };
    const by = neverStarted || this.exitedOnItsOwn ? 'server' : (this.stopAsked ?? 'pipescope');
    this.info.end = { by, at: Date.now() };
    const timer = setInterval(() => this.deltas.touch(), ENDED_REFRESH_MS);
    timer.unref?.();
    this.store.add(toDisposable(() => clearInterval(timer)));
  }

  /** The snapshot of what changed since the last one, or null when nothing did. */
  snapshot(): SessionSnapshot | null {
    if (!this.deltas.dirty) return null;
    if (this.recorder && this.info.recording)
      this.info.recording = { ...this.info.recording, bytes: this.recorder.writtenBytes };
    const process = processAvailability(this.session);
    if (process.available !== this.info.process.available) this.info.process = process; // sampling stopped working (or began to)
    const live = this.session.liveMetrics();
    const ended = this.ended;
    const metrics = ended ? restingMetrics(live, ended.ms) : live;
    // An ended session's chart ends on one point at rest, repeated (never appended twice).
    if (ended && !ended.point) ended.point = pointOf(metrics);
    const s = this.deltas.build(
      this.info,
      metrics,
      this.session.findings.all(),
      ended?.point ?? undefined,
    );
    if (this.points.at(-1)?.t !== s.point.t) keepNewest(this.points, [s.point], HISTORY.points);
    keepNewest(this.sizes, s.frameSizes, HISTORY.frameSizes);
    return s;
  }

  /**
   * The whole state as of the last snapshot built, for one new subscriber (a reload, a second
   * window, a reconnect): every request, the frames the store still lists, the stderr ring,
   * the findings, the chart history. Its lists replace what the subscriber held, and the next
   * deltas continue from it. Call it right after a flush: nothing is pending then, so nothing
   * it holds comes again in a delta.
   */
  fullSnapshot(): SessionSnapshot {
    const s = this.session;
    const metrics = this.ended ? restingMetrics(s.liveMetrics(), this.ended.ms) : s.liveMetrics();
    const frames = s.frames
      .last(HISTORY.frames)
      .map((f) => (f.preview.length > 120 ? { ...f, preview: cutPreview(f.preview) } : f));
    const newestSeq = frames.at(-1)?.seq ?? 0;
    const text = s.stderr.text();
    const stderr = text.slice(-HISTORY.stderrChars);
    const point = this.points.at(-1) ?? pointOf(metrics);
    const latest = s.evidence.latest();
    return {
      sessionId: this.id,
      seq: this.deltas.lastSeq,
      info: { ...this.info },
      metrics,
      point,
      requests: s.requests.all().map((r) => ({ ...r })),
      // Frames are numbered from 1 in both directions: the rest were evicted from the store.
      frames,
      framesSkipped: Math.max(0, newestSeq - frames.length),
      frameSizes: [...this.sizes],
      stderr,
      stderrSkipped: metrics.stderrDroppedBytes + (text.length - stderr.length),
      findings: s.findings.all().map((f) => ({ ...f })),
      replace: true,
      series: [...this.points],
      ...(latest ? { process: latest, processHistory: this.processTrail.flat() } : {}),
    };
  }

  /** Stops the server (`by`: who asked; a person unless said otherwise). */
  stop(by: SessionEnd['by'] = 'user'): Promise<void> {
    this.stopAsked ??= by;
    return this.session.stop();
  }

  async close(): Promise<void> {
    await this.stop();
    this.events.closed(this.id);
  }

  async framePage(seq: number, offset: number, length: number): Promise<Result<FramePage>> {
    const frames = this.session.frames;
    const page = frames.page(seq, offset, length);
    if (!page) return err('ENOFRAME', `frame ${seq} is not held (evicted or unknown)`);
    return ok({
      seq: page.seq,
      offset: page.offset,
      length: page.length,
      totalBytes: page.totalBytes,
      text: page.data.toString('utf8'),
      sha256: frames.sha256(seq),
    });
  }

  async searchFrames(o: SearchOptions): Promise<Result<FrameSearchPage>> {
    return ok(await searchFrames(storeSource(this.session.frames), o));
  }

  async findInFrame(
    seq: number,
    n: Needle,
    from: number,
    maxHits: number,
  ): Promise<Result<FrameFindPage>> {
    const data = this.session.frames.bytes(seq);
    if (!data) return err('ENOFRAME', `frame ${seq} is not held (evicted or unknown)`);
    return ok({ seq, totalBytes: data.length, ...findInFrame(data, n, from, maxHits) });
  }

  exportTrace(format: ExportFormat): Promise<Result<TraceExport>> {
    const recording = this.info.recording;
    if (!recording)
      return Promise.resolve(err('ENOTRACE', 'this session is not recorded: turn Record on first'));
    return exportRecording(recording.path, format);
  }

  /** Starts recording to `path` (default: defaultTracePath), or stops (`record` false). */
  async record(
    record: boolean,
    path?: string,
    overwrite = false,
    redact = true,
  ): Promise<Result<{ path: string | null }>> {
    if (!record) {
      const recorder = this.recorder;
      if (!recorder) return ok({ path: this.info.recording?.path ?? null });
      await this.finishRecording(recorder);
      return ok({ path: recorder.path });
    }
    if (this.recorder) return ok({ path: this.recorder.path });
    const state = this.session.state;
    if (state === 'stopped' || state === 'failed')
      return err('ENOTRUNNING', `session is ${state}: nothing left to record`);
    const file = path === undefined ? defaultTracePath(this.info.title) : recordingPath(path);
    const started = startRecording(
      this.session,
      file,
      (message) => {
        if (this.recorder?.path === file) this.recorder = null;
        if (this.info.recording?.path === file)
          this.info.recording = { ...this.info.recording, active: false };
        this.deltas.touch();
        this.events.changed();
        this.events.notice(message);
      },
      overwrite,
      redact,
    );
    if (!started.ok) {
      this.events.notice(started.error.message);
      return started;
    }
    const recorder = started.value;
    this.recorder = recorder;
    this.info.recording = {
      path: recorder.path,
      bytes: recorder.writtenBytes,
      active: true,
      ...(redact ? {} : { redacted: false }),
    };
    this.deltas.touch();
    this.events.changed();
    return ok({ path: recorder.path });
  }

  private async finishRecording(recorder: TraceRecorder): Promise<void> {
    await recorder.finish();
    if (this.recorder === recorder) this.recorder = null;
    if (this.info.recording?.path === recorder.path && !recorder.error)
      this.info.recording = {
        ...this.info.recording,
        path: recorder.path,
        bytes: recorder.writtenBytes,
        active: false,
      };
    this.deltas.touch();
    this.events.changed();
  }

  /** Waits for a recording still being written (host shutdown: the file must be complete). */
  async finishWriting(): Promise<void> {
    await this.recorder?.finish().catch(() => {});
  }

  /** Releases the listeners (the host forgot the session). */
  dispose(): void {
    this.store.dispose();
  }
}

/** What the session says about sampling its process tree, as SessionInfo carries it. */
export function processAvailability(session: Session): ProcessAvailability {
  return processAvailabilityOf(session.evidence.info());
}

/** Appends `items` to `list`, keeping its newest `max`. */
function keepNewest<T>(list: T[], items: readonly T[], max: number): void {
  list.push(...items);
  if (list.length > max) list.splice(0, list.length - max);
}
