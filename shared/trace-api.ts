/**
 * The trace part of the HostApi (issue 5, app side): recording a live session, opening a trace
 * as a read-only "trace session", seeking it, streaming a dropped file to the host, replaying it
 * against a server and exporting it. Channel schemas here are merged into HOST_CHANNELS
 * (shared/host-api.ts); pure types and zod only, no DOM, no Node.
 */
import { z } from 'zod';
import type { FindingCode } from './findings.js';
import type { ProbeReport } from './probe-report.js';
import type { JsonRpcId, RequestStatus } from './requests.js';
import type { SessionInfo, SessionSnapshot } from './session-info.js';

/** Largest chunk of a streamed upload (bytes before base64). */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;
/** Base64 of UPLOAD_CHUNK_BYTES bytes. */
const UPLOAD_CHUNK_BASE64_CHARS = Math.ceil(UPLOAD_CHUNK_BYTES / 3) * 4;

export const EXPORT_FORMATS = ['perfetto', 'html', 'md'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface TraceExport {
  fileName: string;
  mime: string;
  text: string;
}

export interface TraceSeekResult {
  snapshot: SessionSnapshot;
  /** The `probe --json` report as of t (at the end: exactly `pipescope report --json`). */
  report: ProbeReport;
}

export interface TraceUploadAck {
  /** Bytes the host holds so far. */
  received: number;
  /** Set on the last chunk: the opened trace session. */
  session: SessionInfo | null;
}

/** One request's then-vs-now (the engine's ReplayRequestDiff, as data). */
export interface ReplayRequestView {
  oldId: JsonRpcId;
  newId: JsonRpcId | null;
  method: string;
  statusThen: RequestStatus | null;
  statusNow: RequestStatus | null;
  bytesThen: number | null;
  bytesNow: number | null;
  bytesDelta: number | null;
  latencyThenMs: number | null;
  latencyNowMs: number | null;
  response: 'same' | 'changed' | 'missing' | 'new' | 'none' | 'unknown';
}

/** What `trace:replay` answers (the engine's ReplayResult, as data). */
export interface ReplayReport {
  trace: string;
  command: string;
  args: string[];
  timing: 'recorded' | 'fast';
  requests: ReplayRequestView[];
  findings: {
    recorded: FindingCode[];
    replayed: FindingCode[];
    added: FindingCode[];
    removed: FindingCode[];
  };
  notes: string[];
  differences: number;
  startError: string | null;
  report: ProbeReport;
}

const id = z.string().min(1).max(100);
const filePath = z.string().min(1).max(4096);

export const traceUploadSchema = z
  .object({
    uploadId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
    seq: z.number().int().min(0),
    chunkBase64: z.string().max(UPLOAD_CHUNK_BASE64_CHARS).optional(),
    text: z.string().max(UPLOAD_CHUNK_BYTES).optional(),
    done: z.boolean(),
    fileName: z.string().max(255).optional(),
  })
  .refine((p) => p.chunkBase64 === undefined || p.text === undefined, {
    message: 'send chunkBase64 or text, not both',
  });

export const traceExportSchema = z
  .object({ traceId: id.optional(), sessionId: id.optional(), format: z.enum(EXPORT_FORMATS) })
  .refine((p) => (p.traceId === undefined) !== (p.sessionId === undefined), {
    message: 'give traceId or sessionId',
  });

export const TRACE_CHANNELS = {
  'session:record': z.object({
    sessionId: id,
    record: z.boolean(),
    /** Absolute, or a name in the traces folder. */
    path: filePath.optional(),
    /** Replace a file that exists (a save dialog asked already); refused otherwise. */
    overwrite: z.boolean().default(false),
    /** false: record without redaction (exact bytes, for a local trace that must replay
     *  exactly; secrets stay in the file). */
    redact: z.boolean().default(true),
  }),
  'trace:open': z.object({ path: filePath }),
  'trace:upload': traceUploadSchema,
  'trace:seek': z.object({ traceId: id, t: z.number().finite().min(0) }),
  'trace:replay': z.object({
    traceId: id,
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(32_768)).max(1000).default([]),
    timing: z.enum(['recorded', 'fast']).default('fast'),
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  }),
  'trace:export': traceExportSchema,
} as const;
