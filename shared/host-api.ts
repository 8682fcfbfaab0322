/**
 * HostApi: the one interface the renderer talks to. Electron implements it over IPC (preload
 * bridge), browser mode over a WebSocket; the Node side implements it once (SessionManager).
 * Every call's payload is validated in the host against the zod schema of its channel, and every
 * answer is data: `Result<T>`, never a thrown error (STYLE.md "Contracts once").
 */
import { z } from 'zod';
import type { AttachReport, Candidate } from './attach.js';
import type { DemoScenario } from './demo-catalog.js';
import {
  type FrameFindPage,
  type FramePage,
  type FrameSearchPage,
  SEARCH_QUERY_MAX,
} from './frames.js';
import { HOST_PROFILE_IDS } from './host-profiles.js';
import type { Result } from './result.js';
import type { SessionInfo, SessionSnapshot } from './session-info.js';
import {
  OPTION_LIMITS,
  OVERLOAD_POLICIES,
  OVERSIZE_POLICIES,
  READER_MODES,
} from './session-options.js';
import type { TapConfigResult } from './tap-config.js';
import {
  type ReplayReport,
  TRACE_CHANNELS,
  type TraceExport,
  type TraceSeekResult,
  type TraceUploadAck,
} from './trace-api.js';

/** What the Electron menu tells the renderer (browser mode never sends these). */
export type AppMenuEvent =
  | { type: 'menu'; action: 'new-session' }
  | { type: 'menu'; action: 'import-config'; fileName: string; text: string }
  | { type: 'menu'; action: 'open-trace'; path: string }
  | { type: 'menu'; action: 'save-trace'; path: string };

export type HostEvent =
  | { type: 'snapshot'; snapshot: SessionSnapshot }
  | { type: 'sessions'; sessions: SessionInfo[] }
  /** Something the user should know that no call returned (a recording stopped on a full disk). */
  | { type: 'notice'; level: 'info' | 'error'; text: string; sessionId?: string }
  | AppMenuEvent
  /** Raised by the renderer-side host itself (the link to main dropped or came back). */
  | { type: 'connection'; state: 'connected' | 'disconnected' };

/** A server imported from a host's config file (Claude Desktop, Cursor, VS Code, Claude Code). */
export interface ImportedServer {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  source: string;
  /** What the importer left as is (placeholders such as ${input:…}, an envFile not loaded). */
  notes?: string[];
}

export interface ImportResult {
  format: ConfigFormat;
  servers: ImportedServer[];
  /** Entries that cannot run over stdio (remote URLs, missing command), with the reason. */
  skipped: { name: string; reason: string }[];
}

export const CONFIG_FORMATS = [
  'auto',
  'claude-desktop',
  'cursor',
  'vscode',
  'claude-code',
] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number];

export interface DiscoveredConfig {
  path: string;
  format: ConfigFormat;
  result: ImportResult | null;
  error: string | null;
  /** How many of its servers already run through `pipescope tap` (absent when none). */
  tapped?: number;
}

/** The longest watch window `attach:run` takes (the CLI takes more; a click waits for it). */
export const ATTACH_MAX_WATCH_MS = 10_000;
/** The shortest that can show anything (the sampler's slow cadence is 500 ms). */
export const ATTACH_MIN_WATCH_MS = 500;

// ---- channel schemas: payloads validated in the host ----

const sessionId = z.string().min(1).max(100);
const requestId = z.union([z.string().max(200), z.number().finite()]);
const env = z.record(z.string().max(256), z.string().max(32_768));
/** A host config file: one of the paths `config:discover` answered (the handler checks). */
const configPath = z.string().min(1).max(4096);

const sessionOptions = {
  readerMode: z.enum(READER_MODES).optional(),
  consumerDelayMs: z.number().min(0).max(OPTION_LIMITS.consumerDelayMs).optional(),
  overloadPolicy: z.enum(OVERLOAD_POLICIES).optional(),
  onOversize: z.enum(OVERSIZE_POLICIES).optional(),
  maxFrameBytes: z.number().int().min(1).max(OPTION_LIMITS.maxFrameBytes).optional(),
  requestTimeoutMs: z.number().int().min(0).max(OPTION_LIMITS.requestTimeoutMs).optional(),
  resultBudgetBytes: z.number().int().min(1).max(OPTION_LIMITS.maxFrameBytes).optional(),
  /** A host profile: its limits fill the options above that are not given. */
  hostProfile: z.enum(HOST_PROFILE_IDS).optional(),
};

export const startSessionSchema = z.union([
  z.object({
    demo: z.object({
      id: z.string().min(1).max(100),
      knobs: z.record(z.string().max(100), z.string().max(1000)).default({}),
    }),
    ...sessionOptions,
  }),
  z.object({
    server: z.object({
      name: z.string().max(200).optional(),
      command: z.string().min(1).max(4096),
      args: z.array(z.string().max(32_768)).max(1000).default([]),
      cwd: z.string().max(4096).optional(),
      env: env.default({}),
    }),
    ...sessionOptions,
  }),
]);
export type StartSessionRequest = z.input<typeof startSessionSchema>;

const startOptionsSchema = z.object(sessionOptions);
/** The options of a start request besides what to run (reader mode, limits, host profile…). */
export type StartOptions = z.output<typeof startOptionsSchema>;

/**
 * A live session's start config as `session:config` answers it (what Edit & retry prefills):
 * the request it was started with, except that environment values stay on the host (only
 * their names come back; `session:restart`'s `keepEnv` names the ones to keep).
 */
export type SessionConfigView = StartOptions &
  (
    | { demo: { id: string; knobs: Record<string, string> } }
    | {
        server: {
          name?: string;
          command: string;
          args: string[];
          cwd?: string;
          envNames: string[];
        };
      }
  );

/** Most sessions one `session:close-many` closes. */
export const MAX_CLOSE_MANY = 500;

export const HOST_CHANNELS = {
  'demo:list': z.object({}),
  'session:list': z.object({}),
  'session:start': startSessionSchema,
  'session:stop': z.object({ sessionId }),
  'session:close': z.object({ sessionId }),
  /** Closes several sessions at once (Close others, Close stopped); `onlyEnded`: keep any whose
   *  server still runs (a list the renderer built may be a moment old). */
  'session:close-many': z.object({
    sessionIds: z.array(sessionId).min(1).max(MAX_CLOSE_MANY),
    onlyEnded: z.boolean().optional(),
  }),
  /** The start config of a live session, environment values left out (Edit & retry). */
  'session:config': z.object({ sessionId }),
  /** Starts a live session's config again in its place (same tab, same name), stopping it
   *  first if it still runs; `start` replaces the config (Edit & retry), and the values of the
   *  variables named in `keepEnv` come from the old config (the renderer never had them). */
  'session:restart': z.object({
    sessionId,
    start: startSessionSchema.optional(),
    keepEnv: z.array(z.string().max(256)).max(1000).optional(),
  }),
  'session:recover': z.object({ sessionId }),
  'session:set-reader-mode': z.object({ sessionId, mode: z.enum(READER_MODES) }),
  'session:set-consumer-delay': z.object({
    sessionId,
    ms: z.number().min(0).max(OPTION_LIMITS.consumerDelayMs),
  }),
  'session:set-limits': z.object({
    sessionId,
    maxFrameBytes: sessionOptions.maxFrameBytes,
    onOversize: sessionOptions.onOversize,
    overloadPolicy: sessionOptions.overloadPolicy,
  }),
  'request:call-tool': z.object({
    sessionId,
    name: z.string().min(1).max(500),
    args: z.record(z.string(), z.unknown()).default({}),
  }),
  'request:send': z.object({
    sessionId,
    method: z.string().min(1).max(500),
    params: z.record(z.string(), z.unknown()).optional(),
  }),
  'request:ping': z.object({ sessionId }),
  'request:cancel': z.object({ sessionId, requestId, reason: z.string().max(500).optional() }),
  'request:replay': z.object({ sessionId, requestId }),
  'frame:page': z.object({
    sessionId,
    seq: z.number().int().min(1),
    offset: z.number().int().min(0),
    length: z
      .number()
      .int()
      .min(0)
      .max(1024 * 1024),
  }),
  /** Payload search over a session's frames, on the host side, one bounded page at a time:
   *  `from` is the previous page's `next`; a newer `searchId` on the same session supersedes
   *  a search still running. */
  'frame:search': z.object({
    sessionId,
    searchId: z.string().min(1).max(64),
    query: z.string().min(1).max(SEARCH_QUERY_MAX),
    caseSensitive: z.boolean().default(false),
    dir: z.enum(['in', 'out']).optional(),
    from: z.object({ seq: z.number().int().min(0), offset: z.number().int().min(0) }).optional(),
    maxHits: z.number().int().min(1).max(1000).default(200),
    budgetMs: z.number().int().min(10).max(2000).default(150),
  }),
  /** The matches of a text inside one frame, from a byte offset on (paged). */
  'frame:find': z.object({
    sessionId,
    seq: z.number().int().min(1),
    query: z.string().min(1).max(SEARCH_QUERY_MAX),
    caseSensitive: z.boolean().default(false),
    from: z.number().int().min(0).default(0),
    maxHits: z.number().int().min(1).max(500).default(100),
  }),
  'config:import': z.object({
    format: z.enum(CONFIG_FORMATS).default('auto'),
    text: z.string().max(8 * 1024 * 1024),
    fileName: z.string().max(4096).optional(),
  }),
  'config:discover': z.object({}),
  /** Wraps a discovered config's stdio servers in `pipescope tap` (all, or these by name);
   *  `dryRun`: only say what would change. */
  'config:tap-install': z.object({
    path: configPath,
    servers: z.array(z.string().min(1).max(1000)).max(500).optional(),
    dryRun: z.boolean().optional(),
  }),
  /** Unwraps every tapped server of a discovered config; `dryRun`: only say what would change. */
  'config:tap-uninstall': z.object({ path: configPath, dryRun: z.boolean().optional() }),
  /** Running processes that look like MCP servers some host started (read-only). */
  'attach:list': z.object({}),
  /** Watches a running process for `watchMs` (default 2000) and reports; starts nothing. */
  'attach:run': z.object({
    pid: z.number().int().min(1).max(2_147_483_647),
    watchMs: z.number().int().min(ATTACH_MIN_WATCH_MS).max(ATTACH_MAX_WATCH_MS).optional(),
  }),
  /** A tapped session: write its tap's flight recorder out now. */
  'tap:dump': z.object({ sessionId }),
  ...TRACE_CHANNELS,
} as const;

export type HostChannel = keyof typeof HOST_CHANNELS;
export type ChannelRequest<C extends HostChannel> = z.input<(typeof HOST_CHANNELS)[C]>;
export type ChannelPayload<C extends HostChannel> = z.output<(typeof HOST_CHANNELS)[C]>;

export interface RecoveryInfo {
  method: string;
  ok: boolean;
  latencyMs: number | null;
}

/** What each channel answers with. */
export interface ChannelResponses {
  'demo:list': DemoScenario[];
  'session:list': SessionInfo[];
  'session:start': SessionInfo;
  'session:stop': null;
  'session:close': null;
  'session:close-many': { closed: string[]; kept: string[] };
  'session:config': SessionConfigView;
  'session:restart': SessionInfo;
  'session:recover': RecoveryInfo;
  'session:set-reader-mode': null;
  'session:set-consumer-delay': null;
  'session:set-limits': null;
  'request:call-tool': { requestId: string | number };
  'request:send': { requestId: string | number };
  'request:ping': { requestId: string | number };
  'request:cancel': null;
  /** On a tapped session the replay runs on a fresh server, in the session `sessionId`. */
  'request:replay': { requestId: string | number; sessionId?: string };
  'frame:page': FramePage;
  'frame:search': FrameSearchPage;
  'frame:find': FrameFindPage;
  'config:import': ImportResult;
  'config:discover': DiscoveredConfig[];
  'config:tap-install': TapConfigResult;
  'config:tap-uninstall': TapConfigResult;
  'attach:list': Candidate[];
  'attach:run': AttachReport;
  'tap:dump': { path: string };
  'session:record': { path: string | null };
  'trace:open': SessionInfo;
  'trace:upload': TraceUploadAck;
  'trace:seek': TraceSeekResult;
  'trace:replay': ReplayReport;
  'trace:export': TraceExport;
}

/** The renderer's view of a host: one call per channel plus the event stream. */
export interface HostApi {
  invoke<C extends HostChannel>(
    channel: C,
    request: ChannelRequest<C>,
  ): Promise<Result<ChannelResponses[C]>>;
  /** Subscribes to snapshots and session-list changes; returns the unsubscribe function. */
  subscribe(listener: (event: HostEvent) => void): () => void;
  /** 'electron' or 'browser'. */
  readonly kind: 'electron' | 'browser';
}

/** Validates a channel payload (used by every host before dispatching). */
export function parseChannelPayload<C extends HostChannel>(
  channel: C,
  payload: unknown,
): Result<ChannelPayload<C>> {
  const schema = HOST_CHANNELS[channel];
  if (!schema)
    return {
      ok: false,
      error: { code: 'EBADCHANNEL', message: `unknown channel ${String(channel)}` },
    };
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    return { ok: false, error: { code: 'EINVAL', message: `${channel}: ${parsed.error.message}` } };
  }
  return { ok: true, value: parsed.data as ChannelPayload<C> };
}

export function isHostChannel(name: unknown): name is HostChannel {
  return typeof name === 'string' && Object.hasOwn(HOST_CHANNELS, name);
}

declare const validated: unique symbol;

/**
 * A call whose payload has passed its channel's schema. Only parseHostCall makes one, so a
 * handler that takes a HostCall knows its payload was validated: once, where the call entered
 * the Node side (the IPC handler, the WebSocket bridge, or SessionManager.handle for callers in
 * the same process), and never again behind it.
 */
export type HostCall = {
  [C in HostChannel]: {
    readonly channel: C;
    readonly payload: ChannelPayload<C>;
    readonly [validated]: true;
  };
}[HostChannel];

/** Checks the channel and validates the payload: a HostCall, or the error to answer with. */
export function parseHostCall(channel: unknown, payload: unknown): Result<HostCall> {
  if (typeof channel !== 'string') {
    return { ok: false, error: { code: 'EBADCHANNEL', message: 'channel must be a string' } };
  }
  if (!isHostChannel(channel)) {
    return { ok: false, error: { code: 'EBADCHANNEL', message: `unknown channel ${channel}` } };
  }
  const parsed = parseChannelPayload(channel, payload);
  if (!parsed.ok) return parsed;
  // The brand exists only in the type system: this is the one place that may assert it.
  return { ok: true, value: { channel, payload: parsed.value } as unknown as HostCall };
}
