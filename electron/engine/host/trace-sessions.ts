/**
 * Traces opened as read-only sessions: opening, uploads, seeking, exports and replays.
 * Owns: every TraceSession a host opened (their readers and file handles), their last
 * snapshot, and the upload store. Fed by: the trace handlers (handlers/traces.ts) and, as
 * HostedSessions, the channels both kinds of session share (stop, close, frame:page, export).
 * Listens: the manager's subscribers, through `emit` (a seek's snapshot) and `changed` (the
 * session list).
 */
import path from 'node:path';
import type { FrameFindPage, FramePage, FrameSearchPage } from '../../../shared/frames.js';
import type { HostEvent } from '../../../shared/host-api.js';
import { err, ok, type Result } from '../../../shared/result.js';
import type { SessionInfo, SessionSnapshot } from '../../../shared/session-info.js';
import type {
  ExportFormat,
  ReplayReport,
  TraceExport,
  TraceSeekResult,
  TraceUploadAck,
} from '../../../shared/trace-api.js';
import {
  findInFrame,
  type Needle,
  type SearchOptions,
  searchFrames,
} from '../session/frame-search.js';
import { TraceReadError, TraceReader } from '../trace/reader.js';
import { replayTrace } from '../trace/replay-diff.js';
import { TraceSession } from '../trace/trace-session.js';
import { TraceUploads, type UploadChunk } from '../trace/uploads.js';
import type { HostedSession } from './hosted.js';

const MAX_TRACES = 16;

/** One open trace, as a tab of the host. */
class OpenTrace implements HostedSession {
  /** The latest seek asked for (when seeks overlap, the latest asked wins downstream). */
  seq = 0;
  last: SessionSnapshot | null = null;

  constructor(
    readonly id: string,
    readonly session: TraceSession,
    readonly info: SessionInfo,
    private readonly owner: TraceSessions,
  ) {}

  infoNow(): SessionInfo {
    return { ...this.info };
  }

  /** Nothing runs behind a trace. */
  async stop(): Promise<void> {}

  close(): Promise<void> {
    return this.owner.close(this.id);
  }

  async framePage(seq: number, offset: number, length: number): Promise<Result<FramePage>> {
    const page = await this.session.framePage(seq, offset, length);
    return typeof page === 'string' ? err('ENOFRAME', page) : ok(page);
  }

  async searchFrames(o: SearchOptions): Promise<Result<FrameSearchPage>> {
    return ok(await searchFrames(this.session.searchSource(), o));
  }

  async findInFrame(
    seq: number,
    n: Needle,
    from: number,
    maxHits: number,
  ): Promise<Result<FrameFindPage>> {
    const data = await this.session.frameBytes(seq);
    if (typeof data === 'string') return err('ENOFRAME', data);
    return ok({ seq, totalBytes: data.length, ...findInFrame(data, n, from, maxHits) });
  }

  async exportTrace(format: ExportFormat): Promise<Result<TraceExport>> {
    return ok(await this.session.exportAs(format, this.info.trace?.fileName));
  }
}

export class TraceSessions {
  private readonly traces = new Map<string, OpenTrace>();
  private readonly uploads = new TraceUploads();
  private nextId = 1;

  constructor(
    private readonly emit: (e: HostEvent) => void,
    private readonly changed: () => void,
    /** A name no other tab has (the same file opened twice: "trace.jsonl #2"). */
    private readonly uniqueTitle: (base: string, self: string) => string = (base) => base,
  ) {}

  get(id: string): HostedSession | null {
    return this.traces.get(id) ?? null;
  }

  infos(): SessionInfo[] {
    return [...this.traces.values()].map((o) => o.infoNow());
  }

  /** Snapshots a late subscriber needs (a reload or a reconnect shows each trace as it was). */
  lastSnapshots(): SessionSnapshot[] {
    return [...this.traces.values()].flatMap((o) => (o.last ? [o.last] : []));
  }

  /** Opens `file`, registers it and shows its end state. */
  async open(file: string): Promise<Result<SessionInfo>> {
    if (this.traces.size >= MAX_TRACES) return err('ELIMIT', `at most ${MAX_TRACES} open traces`);
    let reader: TraceReader;
    try {
      reader = await TraceReader.open(path.resolve(file));
    } catch (e) {
      return err('ETRACE', e instanceof TraceReadError ? e.message : String(e));
    }
    let session: TraceSession;
    try {
      session = await TraceSession.load(reader);
    } catch (e) {
      await reader.close();
      return err('ETRACE', `cannot index ${file}: ${(e as Error).message}`);
    }
    const id = `trace-${this.nextId++}`;
    const entry = new OpenTrace(id, session, session.info(id, session.durationMs), this);
    entry.info.title = this.uniqueTitle(entry.info.title, id);
    // Registered for its first seek, and kept only if that seek worked: a trace that fails to
    // open leaves no tab behind (failed opens used to fill the 16 places for good).
    this.traces.set(id, entry);
    this.changed();
    let shown: Result<TraceSeekResult>;
    try {
      shown = await this.seek(id, session.durationMs);
    } catch (e) {
      shown = err('ETRACE', `cannot read ${file}: ${(e as Error).message}`);
    }
    if (!shown.ok) {
      this.traces.delete(id);
      await session.close().catch(() => {});
      this.changed();
      return shown;
    }
    return ok(entry.infoNow());
  }

  async upload(c: UploadChunk): Promise<Result<TraceUploadAck>> {
    const r = await this.uploads.chunk(c);
    if (!r.ok) return r;
    if (r.value.path === null) return ok({ received: r.value.received, session: null });
    const opened = await this.open(r.value.path);
    if (!opened.ok) return opened;
    // The temp name carries a counter; show the name the user dropped.
    const entry = this.traces.get(opened.value.id);
    if (entry?.info.trace && c.fileName) {
      entry.info.trace.fileName = path.basename(c.fileName);
      entry.info.title = this.uniqueTitle(entry.info.trace.fileName, entry.id);
      this.changed();
    }
    return ok({ received: r.value.received, session: entry ? entry.infoNow() : opened.value });
  }

  /** The state at t: pushed to every subscriber and returned with the report as of t. */
  async seek(id: string, t: number): Promise<Result<TraceSeekResult>> {
    const o = this.traces.get(id);
    if (!o?.info.trace) return err('ENOTRACE', `no trace ${id}`);
    const clamped = Math.min(Math.max(0, t), o.session.durationMs);
    // The seq is taken before the reads: when seeks overlap, the latest asked wins downstream.
    o.seq += 1;
    const seq = o.seq;
    const state = await o.session.stateAt(clamped);
    const report = await o.session.reportAt(clamped);
    if (!this.traces.has(id)) return err('ENOTRACE', `trace ${id} was closed`);
    if (seq === o.seq) {
      Object.assign(o.info, state.info);
      o.info.trace = { ...o.info.trace, t: clamped };
    }
    const snapshot: SessionSnapshot = {
      ...state.snapshot,
      sessionId: id,
      seq,
      info: { ...o.info, ...state.info, trace: { ...o.info.trace, t: clamped } },
    };
    if (seq === o.seq) o.last = snapshot;
    this.emit({ type: 'snapshot', snapshot });
    return ok({ snapshot, report });
  }

  async replay(
    id: string,
    o: { command: string; args: string[]; timing: 'recorded' | 'fast'; timeoutMs: number },
  ): Promise<Result<ReplayReport>> {
    const entry = this.traces.get(id);
    if (!entry) return err('ENOTRACE', `no trace ${id}`);
    const result: ReplayReport = await replayTrace(entry.session.reader, o);
    return ok(result);
  }

  async close(id: string): Promise<void> {
    const o = this.traces.get(id);
    if (!o) return;
    this.traces.delete(id);
    await o.session.close().catch(() => {});
    this.changed();
  }

  /** Closes every trace and deletes uploaded files (host shutdown). */
  async dispose(): Promise<void> {
    const all = [...this.traces.values()];
    this.traces.clear();
    await Promise.all(all.map((o) => o.session.close().catch(() => {})));
    await this.uploads.dispose();
  }
}
