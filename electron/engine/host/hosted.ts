/**
 * What a host shows as a session tab: a live session (a server we run, live-session.ts) or a
 * read-only one opened from a trace file (trace-sessions.ts). The channels that make sense for
 * both (stop, close, a frame's page, a payload search, an export) take a HostedSession and never ask which kind
 * it is; HostContext.find (context.ts) is the one place that looks an id up in both.
 */
import type { FrameFindPage, FramePage, FrameSearchPage } from '../../../shared/frames.js';
import type { Result } from '../../../shared/result.js';
import type { SessionInfo } from '../../../shared/session-info.js';
import type { ExportFormat, TraceExport } from '../../../shared/trace-api.js';
import type { Needle, SearchOptions } from '../session/frame-search.js';

export interface HostedSession {
  readonly id: string;
  /** A copy of what the session list shows. */
  infoNow(): SessionInfo;
  /** Stops what runs behind it (a trace has nothing to stop). */
  stop(): Promise<void>;
  /** Stops it and removes it from the host. */
  close(): Promise<void>;
  framePage(seq: number, offset: number, length: number): Promise<Result<FramePage>>;
  /** One page of a payload search over its frames (frame-search.ts). */
  searchFrames(o: SearchOptions): Promise<Result<FrameSearchPage>>;
  /** The matches inside one frame, from byte `from` on. */
  findInFrame(
    seq: number,
    n: Needle,
    from: number,
    maxHits: number,
  ): Promise<Result<FrameFindPage>>;
  exportTrace(format: ExportFormat): Promise<Result<TraceExport>>;
}
