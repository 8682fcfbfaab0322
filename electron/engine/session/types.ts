/** The Session's public shapes: what hosts send, get back and listen to. */
import type { MessagePort } from 'node:worker_threads';
import type { LiveFinding } from '../../../shared/findings.js';
import type { LiveMetrics } from '../../../shared/metrics.js';
import type { ProcessSnapshot } from '../../../shared/process.js';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import type { SessionState } from '../../../shared/session-info.js';
import type { ExitInfo } from '../../wire/protocol.js';
import type { FrameBytes } from '../transport/frame-bytes.js';
import type { FrameSummary } from './frame-store.js';

export interface RecoveryResult {
  method: string;
  ok: boolean;
  latencyMs: number | null;
}

export interface SendOptions {
  /** Attach a progress token (`_meta.progressToken`). */
  progress?: boolean;
  /** Overrides the config's request timeout (0: none). */
  timeoutMs?: number;
  replayOf?: JsonRpcId;
}

export interface Sent {
  id: JsonRpcId;
  /** Settles when the request reaches completed, failed, cancelled or timed-out. */
  done: Promise<{ record: RequestRecord; response: FrameBytes | null }>;
}

export interface SessionEvents {
  state: [state: SessionState];
  frame: [summary: FrameSummary];
  stderr: [text: string, t: number];
  request: [record: RequestRecord];
  finding: [finding: LiveFinding, isNew: boolean];
  exit: [exit: ExitInfo];
  tick: [metrics: LiveMetrics];
  /** A new sample of the server's process tree (DESIGN.md "Process evidence"). */
  process: [snapshot: ProcessSnapshot];
  /** The framer hit maxFrameBytes (`start`) and found the next newline (`end`): for traces. */
  oversize: [
    info: { phase: 'start' | 'end'; offset: number; bytes: number; atEof: boolean; t: number },
  ];
}

/** How a Session is made beyond its config. */
export interface SessionOptions {
  frameStoreBytes?: number;
  /** Tap mode (`pipescope tap`): observe a host's server through the relay on this port. */
  tap?: MessagePort;
  /** Epoch ms the session's clock counts from (a tap's relay started it before us). */
  startedAtEpochMs?: number;
}

export class SessionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The words for a server that could not start (HARDENING.md 20: clear errors, not hangs). */
export function spawnErrorMessage(command: string, e: { code: string; message: string }): string {
  if (e.code === 'ENOENT')
    return `cannot start ${JSON.stringify(command)}: command not found (ENOENT)`;
  if (e.code === 'EACCES')
    return `cannot start ${JSON.stringify(command)}: permission denied (EACCES)`;
  return `cannot start ${JSON.stringify(command)}: ${e.message}`;
}
