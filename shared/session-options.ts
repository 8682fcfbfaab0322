/**
 * What a session can be told and what it does when told nothing: the values of its options and
 * every default, declared once. session-config.ts validates a config with zod against these;
 * the renderer, which must not bundle zod, imports the values from here; the engine's hosts
 * and the CLI take their defaults from here too. Pure values: no zod, no DOM, no Node.
 */
import { MIB } from './units.js';

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

/** Budgets behind the findings (DESIGN.md finding table). */
export interface Budgets {
  /** stdout stalled with a response owed, the server alive, the host not reading (ms). */
  writeBlockedMs: number;
  /** a complete frame waited this long for the dispatcher (ms). */
  dispatcherWaitMs: number;
  /** messages queued in the dispatcher. */
  dispatcherDepth: number;
  /** a write to the server's stdin waited this long for drain (ms). */
  stdinWaitMs: number;
  /** the recovery probe after a cancellation answered within (ms). */
  recoveryMs: number;
  /** a response owed, stdout silent and the server idle this long: its output is buffered (ms). */
  outputBufferedMs: number;
  /** a response owed, the server on CPU and stdout silent this long (ms). */
  serverBusyMs: number;
  /** CPU % of one core from which a server counts as busy. */
  busyCpuPercent: number;
  /** a process under the server blocked writing a pipe this long (ms). */
  subprocessBlockedMs: number;
}

export const DEFAULT_BUDGETS: Readonly<Budgets> = {
  writeBlockedMs: 1000,
  dispatcherWaitMs: 1000,
  dispatcherDepth: 10_000,
  stdinWaitMs: 1000,
  recoveryMs: 1000,
  outputBufferedMs: 2000,
  serverBusyMs: 2000,
  busyCpuPercent: 80,
  subprocessBlockedMs: 1000,
};

/** Grace periods of the stop ladder (ms): close stdin, SIGTERM the group, SIGKILL it. */
export const DEFAULT_STOP_GRACE_MS = {
  afterStdinClose: 1000,
  afterSigterm: 1000,
  afterSigkill: 2000,
} as const;

export const SESSION_DEFAULTS = {
  /** The transport limit: bytes of one message (pending without a newline). An inspector
   *  lets a real server's large answer through to show it, and flags it (result budget). */
  maxFrameBytes: 128 * MIB,
  onOversize: 'discard',
  overloadPolicy: 'drop',
  /** Bytes the worker may hold while main is not taking frames. */
  spillMaxBytes: 256 * MIB,
  readerMode: 'drain',
  consumerDelayMs: 0,
  /** Per-request timeout; 0 disables it. A timeout sends notifications/cancelled. */
  requestTimeoutMs: 60_000,
  /** The recovery probe's method (null: none). */
  recoveryMethod: 'ping',
  /** Sample the server's process tree for evidence (DESIGN.md "Process evidence"). */
  processSampling: true,
  /** A tool result larger than this is `result-over-budget` (DESIGN.md). */
  resultBudgetBytes: MIB,
} as const satisfies {
  maxFrameBytes: number;
  onOversize: OversizePolicy;
  overloadPolicy: OverloadPolicy;
  spillMaxBytes: number;
  readerMode: ReaderMode;
  consumerDelayMs: number;
  requestTimeoutMs: number;
  recoveryMethod: string | null;
  processSampling: boolean;
  resultBudgetBytes: number;
};

/** Bounds a host accepts for options a person sets (the controls, the IPC schemas). */
export const OPTION_LIMITS = {
  maxFrameBytes: 2 ** 31,
  consumerDelayMs: 60_000,
  requestTimeoutMs: 3_600_000,
} as const;

/** Bound on each step of a host's handshake (initialize, tools/list). */
export const HANDSHAKE_TIMEOUT_MS = 15_000;

/** `pipescope probe`: the whole probe ends inside this (plus the stop ladder). */
export const PROBE_TIMEOUT_MS = 30_000;
