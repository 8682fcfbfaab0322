/**
 * The trace side of the HostApi: opened traces as read-only sessions, seeking, uploads, exports
 * and replays. Owns: every TraceSession a host opened (their readers and file handles), their
 * last snapshot, and the upload store. Fed by: SessionManager, which delegates the `trace:*`
 * channels and `frame:page` / `session:close` for trace ids. Listens: the manager's subscribers,
 * through `emit` (a seek's snapshot) and `changed` (the session list).
 */
import path from 'node:path';
import type { FramePage } from '../../../shared/frames.js';
import type { HostEvent, SessionInfo, SessionSnapshot } from '../../../shared/host-api.js';
import { err, ok, type Result } from '../../../shared/result.js';
import type {
  ExportFormat,
  ReplayReport,
  TraceExport,
  TraceSeekResult,
  TraceUploadAck,
} from '../../../shared/trace-api.js';
import { TraceReadError, TraceReader } from '../trace/reader.js';
import { replayTrace } from '../trace/replay-diff.js';
import { TraceSession } from '../trace/trace-session.js';
import { TraceUploads, type UploadChunk } from '../trace/uploads.js';

const MAX_TRACES = 16;

interface OpenTrace {
  session: TraceSession;
  info: SessionInfo;
  seq: number;
  last: SessionSnapshot | null;
}

export class TraceHost {
  private readonly traces = new Map<string, OpenTrace>();
  private readonly uploads = new TraceUploads();
  private nextId = 1;

  constructor(
    private readonly emit: (e: HostEvent) => void,
    private readonly changed: () => void,
  ) {}

  has(id: string): boolean {
    return this.traces.has(id);
  }

  infos(): SessionInfo[] {
    return [...this.traces.values()].map((o) => ({ ...o.info }));
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
    const entry: OpenTrace = {
      session,
      info: session.info(id, session.durationMs),
      seq: 0,
      last: null,
    };
    this.traces.set(id, entry);
    this.changed();
    await this.seek(id, session.durationMs);
    return ok({ ...entry.info });
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
      entry.info.title = entry.info.trace.fileName = path.basename(c.fileName);
      this.changed();
    }
    return ok({ received: r.value.received, session: entry ? { ...entry.info } : opened.value });
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

  async framePage(
    id: string,
    seq: number,
    offset: number,
    length: number,
  ): Promise<Result<FramePage>> {
    const o = this.traces.get(id);
    if (!o) return err('ENOTRACE', `no trace ${id}`);
    const page = await o.session.framePage(seq, offset, length);
    return typeof page === 'string' ? err('ENOFRAME', page) : ok(page);
  }

  async exportTrace(id: string, format: ExportFormat): Promise<Result<TraceExport>> {
    const o = this.traces.get(id);
    if (!o) return err('ENOTRACE', `no trace ${id}`);
    return ok(await o.session.exportAs(format, o.info.trace?.fileName));
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
