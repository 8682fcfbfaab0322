/**
 * Flight recorder: the last 64 MiB of a session's trace, always kept in memory, written out as a
 * trace file when something goes wrong (an error-level finding, SIGUSR2 to a tap, a request from
 * the app). A tap runs one for every session of a host's (DESIGN.md "Tap, attach and check").
 *
 * A TraceRecorder writes into the ring (`TraceSink`): whole lines, the header first; a request's
 * line is made only at a dump (`lazyLines`: a copy of the record is held until then). Past the
 * bound the oldest chunks go (counted, and said in the file's header). A dump is the header, the
 * ring as it is, and an `end` line with the report as of now: a trace like any other, opened by
 * the same reader (one that starts late).
 * Owns: the ring, its recorder, the dump timer. Fed by: the session's findings. Listens: whoever
 * is told where a dump went (`onDump`).
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LiveFinding } from '../../../shared/findings.js';
import { TRACE_FORMAT } from '../../../shared/trace-format.js';
import { buildProbeReport } from '../session/build-report.js';
import type { Session } from '../session/session.js';
import { TraceRecorder, type TraceSink } from './recorder.js';
import { Redactor } from './redact.js';
import type { LazyLine } from './trace-sink.js';

export const FLIGHT_RECORDER_BYTES = 64 * 1024 * 1024;
const FRAME_TEXT_MAX_BYTES = 1024 * 1024;
/** After an error-level finding, what follows it this long goes in the dump too. */
const AFTER_FINDING_MS = 1000;
/** At most one dump for findings this often (a flapping finding must not fill the disk). */
const MIN_DUMP_GAP_MS = 30_000;

/** Chunks of lines, oldest first: made text, or a request's line made only when it is read. */
type Held = string | LazyLine;
const heldBytes = (h: Held): number => (typeof h === 'string' ? h.length : h.bytes);

class Ring implements TraceSink {
  header: string | null = null;
  private chunks: Held[] = [];
  private head = 0;
  bytes = 0;
  droppedBytes = 0;
  readonly writableLength = 0;

  constructor(private readonly maxBytes: number) {}

  write(chunk: string): void {
    if (this.header === null) {
      this.header = chunk;
      return;
    }
    this.hold(chunk);
  }

  writeLazy(line: LazyLine): void {
    this.hold(line);
  }

  private hold(h: Held): void {
    this.chunks.push(h);
    this.bytes += heldBytes(h);
    while (this.bytes > this.maxBytes && this.head < this.chunks.length) {
      const old = this.chunks[this.head] as Held;
      this.chunks[this.head] = '';
      this.head += 1;
      this.bytes -= heldBytes(old);
      this.droppedBytes += heldBytes(old);
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** The lines held, every one made now (and kept made: a second dump redacts nothing twice).
   *  A made line can be longer than its estimate (escapes: a quote is two characters, a control
   *  byte six), so they are made newest first and the oldest that no longer fit go, as they
   *  would have had they been made as they came: the ring keeps its bound. */
  lines(): string[] {
    let bytes = 0;
    let first = this.head;
    for (let i = this.chunks.length - 1; i >= this.head; i--) {
      let h = this.chunks[i] as Held;
      if (typeof h !== 'string') {
        h = h.render();
        this.chunks[i] = h;
      }
      if (bytes + h.length > this.maxBytes) {
        first = i + 1;
        break;
      }
      bytes += h.length;
    }
    for (let i = this.head; i < first; i++) {
      this.droppedBytes += heldBytes(this.chunks[i] as Held);
      this.chunks[i] = '';
    }
    this.head = first;
    this.bytes = bytes;
    return this.chunks.slice(this.head) as string[];
  }

  end(done: () => void): void {
    done();
  }

  destroy(): void {
    this.chunks = [];
    this.head = 0;
    this.bytes = 0;
  }
}

/** Frames in the ring, and how many lost their text (a frame's text is a JSON string: its
 *  quotes are escaped, so `"type":"frame"` unescaped appears only as the event's own key). */
function frameCounts(chunks: string[]): {
  frames: number;
  framesWithText: number;
  truncatedFrames: number;
} {
  let frames = 0;
  let truncatedFrames = 0;
  for (const chunk of chunks) {
    for (const line of chunk.split('\n')) {
      if (!line.includes('"type":"frame"')) continue;
      frames += 1;
      if (line.includes('"truncated":true')) truncatedFrames += 1;
    }
  }
  return { frames, framesWithText: frames - truncatedFrames, truncatedFrames };
}

/** Dumps kept in the traces folder, at most (the oldest go): every tap of every host writes
 *  them, and a server with a banner raises an error finding at each start. */
const DUMPS_KEPT = 50;

function pruneDumps(dir: string): void {
  try {
    const dumps = readdirSync(dir)
      .filter((f) => f.startsWith('flight-') && f.endsWith('.jsonl'))
      .map((f) => ({ f, at: statSync(path.join(dir, f)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { f } of dumps.slice(DUMPS_KEPT)) rmSync(path.join(dir, f), { force: true });
  } catch {
    // another tap pruned at the same time: nothing to do
  }
}

export interface FlightRecorderOptions {
  /** The folder dumps go to (the traces folder). */
  dir: string;
  /** Names the files: `flight-<name>-<time>.jsonl`. */
  name: string;
  maxBytes?: number;
  /** A dump was written (or failed: `error`). */
  onDump(result: { path: string | null; reason: string; error?: string }): void;
}

export class FlightRecorder {
  private readonly ring: Ring;
  private readonly recorder: TraceRecorder;
  private readonly redactor = new Redactor({ enabled: true });
  private timer: NodeJS.Timeout | null = null;
  private pendingReason = '';
  private lastDumpAt = Number.NEGATIVE_INFINITY;
  dumps = 0;

  constructor(
    private readonly session: Session,
    private readonly options: FlightRecorderOptions,
  ) {
    this.ring = new Ring(options.maxBytes ?? FLIGHT_RECORDER_BYTES);
    this.recorder = TraceRecorder.start(session, {
      path: '(flight recorder)',
      sink: this.ring,
      // The ring bounds it: text is kept however long the session runs, but for frames over
      // 1 MiB (their JSON costs the tap CPU, and a few of them would be the whole ring).
      budgetBytes: Number.MAX_SAFE_INTEGER,
      maxFrameTextBytes: FRAME_TEXT_MAX_BYTES,
      // Most of it is never written out: a request's line is made at a dump, not as it comes.
      lazyLines: true,
    });
    session.on('finding', this.onFinding);
  }

  /** Bytes held now, and dropped so far (the oldest). */
  get held(): { bytes: number; droppedBytes: number } {
    return { bytes: this.ring.bytes, droppedBytes: this.ring.droppedBytes };
  }

  private readonly onFinding = (f: LiveFinding, isNew: boolean): void => {
    if (!isNew || f.level !== 'error' || this.timer) return;
    if (performance.now() - this.lastDumpAt < MIN_DUMP_GAP_MS) return;
    this.pendingReason = `${f.code}: ${f.message}`;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dump(this.pendingReason);
    }, AFTER_FINDING_MS);
    this.timer.unref();
  };

  /** A dump waiting for what follows its finding goes now (the session is ending). */
  flushPending(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.dump(this.pendingReason);
  }

  /** Writes the ring out now; returns the file, or null when it could not be written. */
  dump(reason: string): string | null {
    this.lastDumpAt = performance.now();
    this.recorder.flush(); // what the recorder still buffers goes in too
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const safe = this.options.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'session';
    const file = path.join(this.options.dir, `flight-${safe}-${stamp}.jsonl`);
    try {
      mkdirSync(this.options.dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, this.text(reason), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      this.options.onDump({ path: null, reason, error: (e as Error).message });
      return null;
    }
    this.dumps += 1;
    pruneDumps(this.options.dir);
    this.options.onDump({ path: file, reason });
    return file;
  }

  private text(reason: string): string {
    const s = this.session;
    // The held lines first: a lazy one made now may drop the oldest (the ring's bound).
    const chunks = this.ring.lines();
    const header = JSON.parse(this.ring.header ?? 'null') ?? { format: TRACE_FORMAT };
    const redaction = this.recorder.redaction(false);
    if (redaction) header.redaction = redaction;
    header.flightRecorder = {
      reason: this.redactor.text(reason),
      heldBytes: this.ring.bytes,
      droppedBytes: this.ring.droppedBytes,
    };
    const report = this.redactor.report(buildProbeReport(s));
    const t = Math.round(s.now() * 1000) / 1000;
    const metrics = { t, type: 'metrics', metrics: { ...s.liveMetrics() } };
    const end = {
      t,
      type: 'end',
      report,
      recovery: report.recovery,
      startError: null,
      recording: { bytes: this.ring.bytes, droppedEvents: 0, ...frameCounts(chunks) },
    };
    // A session that stopped has its recorder's own `end` in the ring already.
    const tail = this.session.state === 'stopped' ? [] : [metrics, end];
    return [
      JSON.stringify(header),
      '\n',
      ...chunks,
      ...tail.map((e) => `${JSON.stringify(e)}\n`),
    ].join('');
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.session.off('finding', this.onFinding);
    void this.recorder.finish();
    this.ring.destroy();
  }
}
