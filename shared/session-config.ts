/**
 * Session configuration: what to spawn and how the transport behaves.
 * Validated with zod at every boundary (CLI flags, IPC, WebSocket, imported configs).
 */
import { z } from 'zod';

export const READER_MODES = ['drain', 'paused', 'naive'] as const;
export type ReaderMode = (typeof READER_MODES)[number];

export const OVERSIZE_POLICIES = ['discard', 'terminate'] as const;
export type OversizePolicy = (typeof OVERSIZE_POLICIES)[number];

/**
 * What the worker does when its bounded spill is full because main is not taking frames:
 * `drop` discards new frames (counted), `pause` stops reading stdout until there is room
 * (the server then blocks: honest backpressure), `terminate` ends the session.
 */
export const OVERLOAD_POLICIES = ['drop', 'pause', 'terminate'] as const;
export type OverloadPolicy = (typeof OVERLOAD_POLICIES)[number];

export const MIB = 1024 * 1024;

export const sessionConfigSchema = z.object({
  command: z.string().min(1, 'command is empty'),
  args: z.array(z.string()).default([]),
  cwd: z.string().optional(),
  /** Added to the minimal default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env: z.record(z.string(), z.string()).default({}),
  maxFrameBytes: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31)
    .default(32 * MIB),
  onOversize: z.enum(OVERSIZE_POLICIES).default('discard'),
  overloadPolicy: z.enum(OVERLOAD_POLICIES).default('drop'),
  /** Bytes the worker may hold while main is not taking frames. */
  spillMaxBytes: z
    .number()
    .int()
    .min(1024)
    .default(256 * MIB),
  readerMode: z.enum(READER_MODES).default('drain'),
  consumerDelayMs: z.number().min(0).max(60_000).default(0),
  /** Per-request timeout; 0 disables it. A timeout sends notifications/cancelled. */
  requestTimeoutMs: z.number().int().min(0).default(60_000),
  /** Method of the recovery probe sent after a cancellation; null disables it. */
  recoveryMethod: z.string().nullable().default('ping'),
  /** Budgets behind the findings (ms). */
  budgets: z
    .object({
      writeBlockedMs: z.number().min(1).default(1000),
      dispatcherWaitMs: z.number().min(1).default(1000),
      dispatcherDepth: z.number().int().min(1).default(10_000),
      stdinWaitMs: z.number().min(1).default(1000),
      recoveryMs: z.number().min(1).default(1000),
    })
    .prefault({}),
  /** Grace periods of the stop ladder (ms). */
  stopGraceMs: z
    .object({
      afterStdinClose: z.number().min(0).default(1000),
      afterSigterm: z.number().min(0).default(1000),
      afterSigkill: z.number().min(0).default(2000),
    })
    .prefault({}),
});

export type SessionConfigInput = z.input<typeof sessionConfigSchema>;
export type SessionConfig = z.output<typeof sessionConfigSchema>;

export function parseSessionConfig(input: unknown): SessionConfig {
  return sessionConfigSchema.parse(input);
}
