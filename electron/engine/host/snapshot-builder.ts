/**
 * SnapshotBuilder: what one session changed since its last snapshot, shaped for the renderer.
 *
 * Owns: the per-session deltas (frame summaries, frame sizes, changed requests, stderr text,
 * the newest process sample) between two snapshots, and turning them into a `SessionSnapshot`. Fed by: the session's
 * events (SessionManager wires them). Listens: nobody; SessionManager calls `build` at most
 * 20 times a second and emits the result.
 *
 * A snapshot stays small whatever the server does (STYLE.md "The hot path"): in a flood of
 * tens of thousands of frames a second nobody reads every summary, so a snapshot carries the
 * newest FRAMES_NEWEST summaries plus up to FRAMES_NOTABLE evicted ones that are not
 * notifications (a response, a request, a pollution line must not drown in a notification
 * flood), with previews cut to PREVIEW_CHARS; everything left out is counted in
 * `framesSkipped`. Frame sizes are pre-aggregated to the largest frame per direction (all the
 * frame-size chart draws), taken over every frame, not a capped sample. Of the process samples
 * that came between two snapshots only the newest goes (each one is the whole tree).
 */
import type { LiveFinding } from '../../../shared/findings.js';
import type { FrameSummary } from '../../../shared/frames.js';
import type { LiveMetrics } from '../../../shared/metrics.js';
import type { ProcessSnapshot } from '../../../shared/process.js';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import type { SeriesPoint, SessionInfo, SessionSnapshot } from '../../../shared/session-info.js';

/** Newest frame summaries per snapshot. */
export const FRAMES_NEWEST = 50;
/** Older non-notification summaries kept besides the newest (requests, responses, problems). */
export const FRAMES_NOTABLE = 50;
/** Preview characters per summary: more than the log's preview column shows. */
export const PREVIEW_CHARS = 120;
export const STDERR_PER_SNAPSHOT = 64 * 1024;

type FrameSize = SessionSnapshot['frameSizes'][number];

/** Cuts a preview to `max` UTF-16 units without splitting a surrogate pair. */
export function cutPreview(preview: string, max: number = PREVIEW_CHARS): string {
  if (preview.length <= max) return preview;
  const code = preview.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return preview.slice(0, end);
}

/** The chart point of a metrics sample. */
export function pointOf(metrics: LiveMetrics): SeriesPoint {
  return {
    t: metrics.elapsedMs,
    stdoutRate: metrics.stdoutRate,
    stderrRate: metrics.stderrRate,
    dispatcherDepth: metrics.dispatcherDepth,
    dispatcherWaitMs: metrics.dispatcherWaitMs,
    largestFrameBytes: metrics.largestFrameBytes,
  };
}

/**
 * The metrics of a session whose server is over (issue 22): nothing flows any more, so the
 * rates are 0 and nothing is in flight or pending (a partial line at EOF is counted in
 * partialBytesAtEof); `elapsedMs` stays at `endedAtMs`, how long the session ran. What keeps
 * counting is the age of the last byte (msSinceLastStdoutByte, from the live clock).
 */
export function restingMetrics(m: LiveMetrics, endedAtMs: number): LiveMetrics {
  return {
    ...m,
    elapsedMs: endedAtMs,
    stdoutRate: 0,
    stderrRate: 0,
    inFlightFrameBytes: 0,
    readingStdout: false,
    stdinPendingWaitMs: 0,
    stdinPendingBytes: 0,
    requestsInFlight: 0,
  };
}

export class SnapshotBuilder {
  /** Ring of the newest summaries: `ring[(head + i) % size]`, oldest first. */
  private readonly ring: (FrameSummary | undefined)[];
  private head = 0;
  private count = 0;
  private notable: FrameSummary[] = [];
  private framesSkipped = 0;
  private largestIn: FrameSize | null = null;
  private largestOut: FrameSize | null = null;
  private readonly requests = new Map<JsonRpcId, RequestRecord>();
  private stderr = '';
  private stderrSkipped = 0;
  private process: ProcessSnapshot | null = null;
  private seq = 0;
  /** Whether anything changed since the last `build` (a snapshot is due). */
  dirty = true;

  /**
   * `previewOf`: a summary's preview, which the session's frame store decodes only when asked
   * (FrameStore.previewOf); summaries from elsewhere carry theirs.
   */
  constructor(
    private readonly newest: number = FRAMES_NEWEST,
    private readonly notableCap: number = FRAMES_NOTABLE,
    private readonly previewOf: (f: FrameSummary) => string = (f) => f.preview,
  ) {
    this.ring = new Array(newest);
  }

  addFrame(f: FrameSummary): void {
    if (this.count < this.newest) {
      this.ring[(this.head + this.count) % this.newest] = f;
      this.count += 1;
    } else {
      const evicted = this.ring[this.head];
      this.ring[this.head] = f;
      this.head = (this.head + 1) % this.newest;
      if (evicted && evicted.kind !== 'notification' && this.notable.length < this.notableCap) {
        this.previewOf(evicted); // now, while the store surely holds its bytes
        this.notable.push(evicted);
      } else this.framesSkipped += 1;
    }
    if (f.dir === 'in') {
      if (!this.largestIn || f.bytes > this.largestIn.bytes)
        this.largestIn = { t: f.t, bytes: f.bytes, dir: 'in' };
    } else if (!this.largestOut || f.bytes > this.largestOut.bytes) {
      this.largestOut = { t: f.t, bytes: f.bytes, dir: 'out' };
    }
    this.dirty = true;
  }

  addRequest(r: RequestRecord): void {
    this.requests.set(r.id, r);
    this.dirty = true;
  }

  addStderr(text: string): void {
    const room = Math.max(0, STDERR_PER_SNAPSHOT - this.stderr.length);
    if (room >= text.length) this.stderr += text;
    else {
      this.stderr += text.slice(0, room);
      this.stderrSkipped += text.length - room;
    }
    this.dirty = true;
  }

  /** A new sample of the process tree: the next snapshot carries the newest one. */
  setProcess(p: ProcessSnapshot): void {
    this.process = p;
    this.dirty = true;
  }

  /** The seq of the last snapshot built (a whole snapshot for a new subscriber takes it). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Something only the whole values show changed (metrics, findings, info). */
  touch(): void {
    this.dirty = true;
  }

  /**
   * The next snapshot: whole values as given, the deltas collected since the last one (then
   * cleared). Request records and findings are copied: the engine keeps mutating its own.
   * `point`: the chart point, when not the metrics' own (an ended session repeats its last,
   * which the renderer does not append twice).
   */
  build(
    info: SessionInfo,
    metrics: LiveMetrics,
    findings: readonly LiveFinding[],
    point: SeriesPoint = pointOf(metrics),
  ): SessionSnapshot {
    this.seq += 1;
    this.dirty = false;
    const snapshot: SessionSnapshot = {
      sessionId: info.id,
      seq: this.seq,
      info: { ...info },
      metrics,
      point,
      requests: [...this.requests.values()].map((r) => ({ ...r })),
      frames: this.takeFrames(),
      framesSkipped: this.framesSkipped,
      frameSizes: this.takeSizes(),
      stderr: this.stderr,
      stderrSkipped: this.stderrSkipped,
      findings: findings.map((f) => ({ ...f })),
      ...(this.process ? { process: this.process } : {}),
    };
    this.process = null;
    this.framesSkipped = 0;
    this.requests.clear();
    this.stderr = '';
    this.stderrSkipped = 0;
    return snapshot;
  }

  /** The kept summaries in seq order (notable ones are older than every ring entry). */
  private takeFrames(): FrameSummary[] {
    const out: FrameSummary[] = [];
    for (const f of this.notable) out.push(this.withShortPreview(f));
    for (let i = 0; i < this.count; i += 1) {
      const f = this.ring[(this.head + i) % this.newest];
      if (f) out.push(this.withShortPreview(f));
    }
    this.ring.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.notable = [];
    return out;
  }

  private withShortPreview(f: FrameSummary): FrameSummary {
    const preview = this.previewOf(f);
    return preview.length > PREVIEW_CHARS || preview !== f.preview
      ? { ...f, preview: cutPreview(preview) }
      : f;
  }

  private takeSizes(): FrameSize[] {
    const sizes = [this.largestIn, this.largestOut].filter((s): s is FrameSize => s !== null);
    this.largestIn = null;
    this.largestOut = null;
    return sizes.length === 2 && sizes[1].t < sizes[0].t ? [sizes[1], sizes[0]] : sizes;
  }
}
