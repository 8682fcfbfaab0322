/**
 * A read-only "trace session": one opened trace file shown in the same dashboard as a live one.
 *
 * Owns: a TraceReader (bounded index, file handle), the trace's small events in a TraceTimeline,
 * typed columns of frame, stderr and process-sample line numbers, and the summary for the final report and the
 * exports (computed once, on demand). Fed by: the host (`trace:open` / `trace:seek` /
 * `frame:page` / `trace:export` / `trace:replay`). Listens: TraceSessions
 * (engine/host/trace-sessions.ts), which turns `stateAt` into snapshots. Frame text and
 * process samples are read from disk, only when asked for (a seek reads the sample at t and
 * the few before it the sparklines draw).
 */

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { FramePage, FrameSummary } from '../../../shared/frames.js';
import type { ProbeReport } from '../../../shared/probe-report.js';
import type { ProcessAvailability } from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import {
  PROCESS_HISTORY_SAMPLES,
  quietPoint,
  type SessionInfo,
  type SessionSnapshot,
} from '../../../shared/session-info.js';
import { DEFAULT_BUDGETS, SESSION_DEFAULTS } from '../../../shared/session-options.js';
import type { ExportFormat, TraceExport } from '../../../shared/trace-api.js';
import type { TraceProcessEvent } from '../../../shared/trace-format.js';
import {
  countUpTo,
  emptyTimeline,
  findingsAt,
  metricsAt,
  processAt,
  processHistoryOf,
  processReportAt,
  requestsAt,
  runningMax,
  seriesAt,
  type TraceTimeline,
  traceMarkers,
  traceProcessAvailability,
} from '../../../shared/trace-state.js';
import type { SearchSource } from '../session/frame-search.js';
import { toHtml, toMarkdown } from './export/doc.js';
import { toChromeTrace } from './export/perfetto.js';
import type { TraceReader } from './reader.js';
import { idKey } from './replay.js';
import { rebuildReport, summarizeTrace, type TraceSummary } from './summary.js';
import { eventBytes, frameEventOf, traceSearchSource } from './trace-search.js';

/** Frame summaries in one state (newest last); the rest are counted as skipped. */
const FRAMES_AT_T = 200;
const SIZES_AT_T = 2000;
const STDERR_AT_T = 64 * 1024;
/** Lines up to this size are read whole for a frame's preview; bigger ones show none. */
const PREVIEW_LINE_BYTES = 16 * 1024;
const PREVIEW_CHARS = 200;

export interface TraceState {
  snapshot: Omit<SessionSnapshot, 'seq' | 'info'>;
  info: Pick<SessionInfo, 'state' | 'pid' | 'exit'>;
}

export class TraceSession {
  private summary: Promise<TraceSummary> | null = null;
  private readonly processLines: Uint32Array;
  private readonly processT: Float64Array;
  readonly processAvailability: ProcessAvailability;

  private constructor(
    readonly reader: TraceReader,
    readonly timeline: TraceTimeline,
    private readonly frameLines: Uint32Array,
    private readonly frameT: Float64Array,
    private readonly stderrLines: Uint32Array,
    private readonly stderrT: Float64Array,
    private readonly stderrBytesBefore: Float64Array,
  ) {
    this.processLines = linesOf(reader, 'process');
    this.processT = runningMax(Float64Array.from(this.processLines, (i) => reader.t(i)));
    this.processAvailability = traceProcessAvailability(reader.header, this.processLines.length);
  }

  /** Indexes an opened reader: one pass over its small events, none over frame text. */
  static async load(reader: TraceReader): Promise<TraceSession> {
    const timeline = emptyTimeline();
    for await (const e of reader.events([
      'metrics',
      'request',
      'finding',
      'state',
      'exit',
      'cancel',
    ])) {
      if (e.type === 'metrics') timeline.metrics.push(e);
      else if (e.type === 'request') timeline.requests.push(e);
      else if (e.type === 'finding') timeline.findings.push(e);
      else if (e.type === 'state') timeline.states.push(e);
      else if (e.type === 'exit') timeline.exits.push(e);
      else if (e.type === 'cancel') timeline.cancels.push(e);
    }
    let frames = 0;
    let stderr = 0;
    for (let i = 0; i < reader.count; i++) {
      const type = reader.type(i);
      if (type === 'frame') frames += 1;
      else if (type === 'stderr') stderr += 1;
    }
    const frameLines = new Uint32Array(frames);
    const stderrLines = new Uint32Array(stderr);
    const stderrBytesBefore = new Float64Array(stderr + 1);
    frames = 0;
    stderr = 0;
    for (let i = 0; i < reader.count; i++) {
      const type = reader.type(i);
      if (type === 'frame') frameLines[frames++] = i;
      else if (type === 'stderr') {
        stderrBytesBefore[stderr + 1] = stderrBytesBefore[stderr] + reader.bytes(i);
        stderrLines[stderr++] = i;
      }
    }
    const tOf = (lines: Uint32Array): Float64Array =>
      runningMax(Float64Array.from(lines, (i) => reader.t(i)));
    return new TraceSession(
      reader,
      timeline,
      frameLines,
      tOf(frameLines),
      stderrLines,
      tOf(stderrLines),
      stderrBytesBefore,
    );
  }

  get durationMs(): number {
    const n = this.reader.count;
    // Whole ms, rounded up: the scrubber's last position is the end itself, not 0.4 ms short.
    return n ? Math.max(0, Math.ceil(this.reader.t(n - 1))) : 0;
  }

  /** The SessionInfo of this trace as opened (state and trace.t follow each seek). */
  info(id: string, t: number): SessionInfo {
    const h = this.reader.header;
    const { markers, skipped } = traceMarkers(this.timeline);
    const at = processAt(this.timeline, t);
    return {
      id,
      title: path.basename(this.reader.path),
      command: h.server.command,
      args: [...h.server.args],
      cwd: h.server.cwd,
      envNames: Object.keys(h.server.env),
      demoId: null,
      pid: at.pid,
      state: at.state,
      exit: at.exit,
      startError: null,
      serverInfo: null,
      handshakeError: null,
      tools: [],
      readerMode: h.config.readerMode,
      consumerDelayMs: h.config.consumerDelayMs,
      overloadPolicy: h.config.overloadPolicy,
      onOversize: h.config.onOversize,
      maxFrameBytes: h.config.maxFrameBytes,
      resultBudgetBytes: h.config.resultBudgetBytes ?? SESSION_DEFAULTS.resultBudgetBytes,
      hostProfile: h.config.hostProfile ?? null,
      // A trace of an older build may lack some: the defaults it ran with then.
      budgets: { ...DEFAULT_BUDGETS, ...h.config.budgets },
      startedAt: h.startedAt,
      recording: null,
      process: { ...this.processAvailability },
      trace: {
        path: this.reader.path,
        fileName: path.basename(this.reader.path),
        fileBytes: this.reader.info.fileBytes,
        recordedAt: h.startedAt,
        durationMs: this.durationMs,
        t,
        reconstructed: this.reader.lastIndexOf('end') === -1,
        skippedLines: this.reader.skippedLines,
        markers,
        markersSkipped: skipped,
        redaction: {
          redacted: h.redacted,
          rules: h.redaction?.rules ?? [],
          final: h.redaction?.final ?? false,
        },
      },
    };
  }

  /** Everything the dashboard shows at t: whole lists, not deltas. */
  async stateAt(t: number): Promise<TraceState> {
    const metrics = { ...metricsAt(this.timeline.metrics, t), elapsedMs: t };
    const series = seriesAt(this.timeline.metrics, t);
    const nFrames = countUpTo(this.frameT.length, (i) => this.frameT[i], t);
    const first = Math.max(0, nFrames - FRAMES_AT_T);
    const frames: FrameSummary[] = [];
    for (let k = first; k < nFrames; k++) {
      const f = await this.frameSummary(this.frameLines[k]);
      if (f) frames.push(f);
    }
    const frameSizes: SessionSnapshot['frameSizes'] = [];
    for (let k = Math.max(0, nFrames - SIZES_AT_T); k < nFrames; k++) {
      const i = this.frameLines[k];
      frameSizes.push({
        t: this.reader.t(i),
        bytes: this.reader.bytes(i),
        dir: this.reader.frameDir(i),
      });
    }
    const { text: stderr, skipped: stderrSkipped } = await this.stderrAt(t);
    const at = processAt(this.timeline, t);
    const samples = await this.processSamplesAt(t, PROCESS_HISTORY_SAMPLES);
    const sample = samples.at(-1);
    return {
      info: at,
      snapshot: {
        sessionId: '',
        metrics,
        point: series.at(-1) ?? quietPoint(t),
        requests: requestsAt(this.timeline.requests, t),
        frames,
        framesSkipped: first,
        frameSizes,
        stderr,
        stderrSkipped,
        findings: findingsAt(this.timeline.findings, t),
        replace: true,
        series,
        ...(sample ? { process: sample.snapshot, processHistory: processHistoryOf(samples) } : {}),
      },
    };
  }

  /** The last `n` process samples recorded at or before t, oldest first (read from disk). */
  async processSamplesAt(t: number, n: number): Promise<TraceProcessEvent[]> {
    const upTo = countUpTo(this.processT.length, (i) => this.processT[i], t);
    const wanted = new Set(this.processLines.subarray(Math.max(0, upTo - n), upTo));
    if (wanted.size === 0) return [];
    const out: TraceProcessEvent[] = [];
    for await (const e of this.reader.events(['process'], (i) => wanted.has(i))) {
      if (e.type === 'process') out.push(e);
    }
    return out;
  }

  /** The probe report as of t; at (or past) the end exactly what `pipescope report` prints. */
  async reportAt(t: number): Promise<ProbeReport> {
    if (t >= this.durationMs) return (await this.summarize()).report;
    const upTo = <E extends { t: number }>(list: readonly E[]): E[] => list.filter((e) => e.t <= t);
    const settled = new Map<string, RequestRecord>();
    for (const e of upTo(this.timeline.requests)) {
      const key = idKey(e.record.id);
      if (e.record.status !== 'pending' && !settled.has(key)) settled.set(key, e.record);
    }
    const at = processAt(this.timeline, t);
    const [last] = await this.processSamplesAt(t, 1);
    return rebuildReport(this.reader.header, {
      pid: at.pid,
      exit: upTo(this.timeline.exits).at(-1) ?? null,
      metrics: upTo(this.timeline.metrics).at(-1)?.metrics ?? null,
      requests: requestsAt(this.timeline.requests, t, Number.POSITIVE_INFINITY),
      settled,
      findings: upTo(this.timeline.findings),
      cancels: upTo(this.timeline.cancels),
      process: processReportAt(this.processAvailability, last ?? null),
    });
  }

  summarize(): Promise<TraceSummary> {
    this.summary ??= summarizeTrace(this.reader);
    return this.summary;
  }

  /** An export named after `displayName` (an uploaded trace's temp file has a counter prefix). */
  async exportAs(format: ExportFormat, displayName = this.reader.path): Promise<TraceExport> {
    return exportSummary(await this.summarize(), displayName, format);
  }

  /** One page of frame `seq`'s recorded text (its line found by a binary search). */
  async framePage(seq: number, offset: number, length: number): Promise<FramePage | string> {
    const e = await frameEventOf(this.reader, this.frameLines, seq);
    if (typeof e === 'string') return e;
    const data = eventBytes(e);
    const page = data.subarray(offset, offset + length);
    return {
      seq,
      offset,
      length: page.length,
      totalBytes: data.length,
      text: page.toString('utf8'),
      sha256: e.sha256 ?? createHash('sha256').update(data).digest('hex'),
    };
  }

  /** Frame `seq`'s recorded bytes (for a search inside it), or why there are none. */
  async frameBytes(seq: number): Promise<Buffer | string> {
    const e = await frameEventOf(this.reader, this.frameLines, seq);
    return typeof e === 'string' ? e : eventBytes(e);
  }

  /** The recorded frames as a payload search walks them. */
  searchSource(): SearchSource {
    return traceSearchSource(this.reader, this.frameLines);
  }

  /** The summary of frame line `i`; null when the line is unreadable (a damaged trace). */
  private async frameSummary(i: number): Promise<FrameSummary | null> {
    const meta = await this.reader.frameMeta(i);
    if (meta === null) return null;
    let preview = '';
    if (!this.reader.isTruncated(i) && this.reader.lineBytes(i) <= PREVIEW_LINE_BYTES) {
      const e = await this.reader.read(i);
      if (e?.type === 'frame') preview = (e.text ?? '').slice(0, PREVIEW_CHARS);
    } else if (this.reader.isTruncated(i)) preview = '(text not recorded: over the budget)';
    else preview = '(large frame: open to page through it)';
    return {
      seq: meta.seq,
      dir: meta.dir,
      t: meta.t,
      offset: meta.offset,
      bytes: meta.bytes,
      kind: meta.kind,
      ...(meta.id === undefined ? {} : { id: meta.id }),
      ...(meta.method === undefined ? {} : { method: meta.method }),
      ...(meta.problem === undefined ? {} : { problem: meta.problem }),
      preview,
      held: !this.reader.isTruncated(i),
    };
  }

  /** stderr up to t: the tail (≤ 64 KiB), read backwards one chunk at a time. */
  private async stderrAt(t: number): Promise<{ text: string; skipped: number }> {
    const n = countUpTo(this.stderrT.length, (i) => this.stderrT[i], t);
    const parts: string[] = [];
    let chars = 0;
    let k = n - 1;
    for (; k >= 0 && chars < STDERR_AT_T; k--) {
      const e = await this.reader.read(this.stderrLines[k]);
      if (e?.type !== 'stderr') continue;
      const text = e.text ?? `[${e.bytes} bytes not recorded]\n`;
      parts.push(text);
      chars += text.length;
    }
    return { text: parts.reverse().join(''), skipped: this.stderrBytesBefore[k + 1] };
  }

  close(): Promise<void> {
    return this.reader.close();
  }
}

/** The line numbers of every event of `type`, in file order. */
function linesOf(reader: TraceReader, type: 'process'): Uint32Array {
  let n = 0;
  for (let i = 0; i < reader.count; i++) if (reader.type(i) === type) n += 1;
  const lines = new Uint32Array(n);
  n = 0;
  for (let i = 0; i < reader.count; i++) if (reader.type(i) === type) lines[n++] = i;
  return lines;
}

/** Renders a summary in one export format, with a file name beside the trace's. */
export function exportSummary(
  sum: TraceSummary,
  tracePath: string,
  format: ExportFormat,
): TraceExport {
  const base = path.basename(tracePath).replace(/\.jsonl?$/i, '');
  if (format === 'perfetto')
    return {
      fileName: `${base}.perfetto.json`,
      mime: 'application/json',
      text: `${JSON.stringify(toChromeTrace(sum))}\n`,
    };
  if (format === 'html') return { fileName: `${base}.html`, mime: 'text/html', text: toHtml(sum) };
  return { fileName: `${base}.md`, mime: 'text/markdown', text: toMarkdown(sum) };
}
