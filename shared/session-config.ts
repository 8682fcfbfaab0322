/**
 * Session configuration: what to spawn and how the transport behaves, validated with zod at
 * every boundary (CLI flags, IPC, WebSocket, imported configs). The values and defaults are
 * session-options.ts's.
 */
import { z } from 'zod';
import { HOST_PROFILE_IDS, isHostProfileId, profileSettings } from './host-profiles.js';
import {
  DEFAULT_BUDGETS,
  DEFAULT_STOP_GRACE_MS,
  OPTION_LIMITS,
  OVERLOAD_POLICIES,
  OVERSIZE_POLICIES,
  READER_MODES,
  SESSION_DEFAULTS,
} from './session-options.js';

const d = SESSION_DEFAULTS;

export const sessionConfigSchema = z.object({
  command: z.string().min(1, 'command is empty'),
  args: z.array(z.string()).default([]),
  cwd: z.string().optional(),
  /** Added to the minimal default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env: z.record(z.string(), z.string()).default({}),
  maxFrameBytes: z.number().int().min(1).max(OPTION_LIMITS.maxFrameBytes).default(d.maxFrameBytes),
  onOversize: z.enum(OVERSIZE_POLICIES).default(d.onOversize),
  overloadPolicy: z.enum(OVERLOAD_POLICIES).default(d.overloadPolicy),
  /** Bytes the worker may hold while main is not taking frames. */
  spillMaxBytes: z.number().int().min(1024).default(d.spillMaxBytes),
  readerMode: z.enum(READER_MODES).default(d.readerMode),
  consumerDelayMs: z.number().min(0).max(OPTION_LIMITS.consumerDelayMs).default(d.consumerDelayMs),
  /** Per-request timeout; 0 disables it. A timeout sends notifications/cancelled. */
  requestTimeoutMs: z.number().int().min(0).default(d.requestTimeoutMs),
  /** Method of the recovery probe sent after a cancellation; null disables it. */
  recoveryMethod: z.string().nullable().default(d.recoveryMethod),
  /** Sample the server's process tree for evidence (off: the pipe's signatures only). */
  processSampling: z.boolean().default(d.processSampling),
  /** A result larger than this is `result-over-budget` (bytes of the response line). */
  resultBudgetBytes: z.number().int().min(1).default(d.resultBudgetBytes),
  /** The host profile whose limits this session applies (`--host`), null: none. */
  hostProfile: z.enum(HOST_PROFILE_IDS).nullable().default(null),
  /** Budgets behind the findings (ms). */
  budgets: z
    .object({
      writeBlockedMs: z.number().min(1).default(DEFAULT_BUDGETS.writeBlockedMs),
      dispatcherWaitMs: z.number().min(1).default(DEFAULT_BUDGETS.dispatcherWaitMs),
      dispatcherDepth: z.number().int().min(1).default(DEFAULT_BUDGETS.dispatcherDepth),
      stdinWaitMs: z.number().min(1).default(DEFAULT_BUDGETS.stdinWaitMs),
      recoveryMs: z.number().min(1).default(DEFAULT_BUDGETS.recoveryMs),
      outputBufferedMs: z.number().min(1).default(DEFAULT_BUDGETS.outputBufferedMs),
      serverBusyMs: z.number().min(1).default(DEFAULT_BUDGETS.serverBusyMs),
      busyCpuPercent: z.number().min(1).max(100).default(DEFAULT_BUDGETS.busyCpuPercent),
      subprocessBlockedMs: z.number().min(1).default(DEFAULT_BUDGETS.subprocessBlockedMs),
    })
    .prefault({}),
  /** Grace periods of the stop ladder (ms). */
  stopGraceMs: z
    .object({
      afterStdinClose: z.number().min(0).default(DEFAULT_STOP_GRACE_MS.afterStdinClose),
      afterSigterm: z.number().min(0).default(DEFAULT_STOP_GRACE_MS.afterSigterm),
      afterSigkill: z.number().min(0).default(DEFAULT_STOP_GRACE_MS.afterSigkill),
    })
    .prefault({}),
});

export type SessionConfigInput = z.input<typeof sessionConfigSchema>;
export type SessionConfig = z.output<typeof sessionConfigSchema>;

/**
 * A config validated, its defaults filled. A host profile (`hostProfile`) fills the limits it
 * knows — transport cap and what happens past it, request timeout, result budget — where the
 * config does not give them (an explicit flag always wins).
 */
export function parseSessionConfig(input: unknown): SessionConfig {
  return sessionConfigSchema.parse(withHostProfile(input));
}

function withHostProfile(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  const id = (input as { hostProfile?: unknown }).hostProfile;
  if (typeof id !== 'string' || !isHostProfileId(id)) return input;
  const given = Object.fromEntries(
    Object.entries(input).filter(([, v]) => v !== undefined),
  ) as Record<string, unknown>;
  return { ...profileSettings(id), ...given };
}
