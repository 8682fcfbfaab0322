/**
 * Messages between a Session's main side (Transport) and its transport worker.
 * MessagePort has no backpressure of its own: frames flow only against credits that main
 * returns as its dispatcher consumes them (DESIGN.md "Processes and threads").
 */

import type { MessagePort } from 'node:worker_threads';
import type { OverloadPolicy, OversizePolicy, ReaderMode } from '../../shared/session-options.js';
import type { EncodedMetas, MetaBuffers } from './columns.js';

export interface WorkerStartConfig {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  maxFrameBytes: number;
  onOversize: OversizePolicy;
  overloadPolicy: OverloadPolicy;
  spillMaxBytes: number;
  readerMode: ReaderMode;
  /** Frames / bytes the worker may have posted and not yet had credited back. */
  creditFrames: number;
  creditBytes: number;
  stopGraceMs: { afterStdinClose: number; afterSigterm: number; afterSigkill: number };
  /** Epoch ms (timeOrigin + now) of the session start, so both threads share one clock. */
  startedAtEpochMs: number;
  /** `pipe`: Node's own pipes for stdout and stderr even where the socket channels work
   *  (read-channel.ts). */
  readChannels?: 'socket' | 'pipe';
  /** Tap mode: the server is a host's, relayed by `pipescope tap`; the worker observes the
   *  copies the relay posts on this port (wire/tap-protocol.ts) and spawns nothing. */
  tap?: MessagePort;
}

/** Main → worker. */
export type ToWorker =
  /** `spare`: metadata buffers of batches main has decoded, handed back for reuse. */
  | { type: 'credit'; frames: number; bytes: number; spare?: MetaBuffers[] }
  /** Main took one stderr batch (stderr-batcher.ts: a few batches in flight at most). */
  | { type: 'stderr-credit' }
  | { type: 'write'; seq: number; data: Uint8Array }
  | { type: 'reader-mode'; mode: ReaderMode }
  /** Read stderr at most this fast (`check`'s slow host); null: as fast as it comes. */
  | { type: 'stderr-pace'; bytesPerSecond: number | null }
  | {
      type: 'limits';
      maxFrameBytes?: number;
      onOversize?: OversizePolicy;
      overloadPolicy?: OverloadPolicy;
    }
  | { type: 'stop'; reason: string };

export interface WorkerCounters {
  t: number;
  stdoutBytes: number;
  stderrBytes: number;
  /** stderr read while main was behind and dropped in the worker (the oldest; counted). */
  stderrDroppedBytes: number;
  lineBytes: number;
  frames: number;
  largestFrameBytes: number;
  parseErrors: number;
  oversizeFrames: number;
  pendingBytes: number;
  partialBytesAtEof: number;
  lastStdoutByteAt: number | null;
  /** Time spent with complete frames waiting for credits, total and longest episode (ms). */
  dispatcherWaitMs: number;
  dispatcherLongestWaitMs: number;
  spillFrames: number;
  spillBytes: number;
  maxSpillFrames: number;
  droppedFrames: number;
  droppedBytes: number;
  readingStdout: boolean;
  /** Total ms the reader was not reading while the child was alive (any reason). */
  notReadingMs: number;
  notReadingSince: number | null;
  stdinBytes: number;
  stdinWaitMs: number;
  stdinPendingBytes: number;
  stdinPendingSince: number | null;
  stdinClosed: boolean;
  stdoutEnded: boolean;
  /** Tap mode: bytes written towards the host and not yet taken by its pipe. */
  hostPendingBytes?: number;
  /** Tap mode: when the host last took bytes again after a spell of not reading. */
  hostResumedAt?: number | null;
  /** Tap mode: when the relay last read the server's stdout (its copies may come later). */
  serverReadAt?: number | null;
  /** Tap mode: the time of the relay's latest state (null: none yet). */
  relayStateAt?: number | null;
}

/** A process of the server's still alive after the stop ladder (DESIGN.md `processes-left`). */
export interface LeftProcess {
  pid: number;
  pgrp: number;
  command: string;
  /** In the server's process group, or outside it holding the server's stdio. */
  why: 'group' | 'stdio';
  /** Gone once signalled by pid (stdio holders), or still alive. */
  killed: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** ms since start. */
  t: number;
}

/**
 * A pipe chunk on its way to main: an ArrayBuffer holding exactly the chunk, transferred; or,
 * for reads of a long line (read-channel.ts), a view of a shared slab — the same memory on
 * both sides, never written again once read into.
 */
export type WireBuffer = ArrayBuffer | Uint8Array;

/** Worker → main. */
export type FromWorker =
  | { type: 'spawned'; pid: number; t: number }
  | { type: 'spawn-error'; code: string; message: string }
  | {
      type: 'frames';
      metas: EncodedMetas;
      /** The pipe chunks the frames lie in (see WireBuffer). A frame is `bytes` bytes at position
       *  `start` of these buffers taken as one run of bytes (it may cross from one to the next). */
      buffers: WireBuffer[];
      /** With views of slabs only: the slab each buffer lies in (slabs.ts; 0 for one of its own). */
      slabs?: number[];
    }
  | {
      type: 'oversize';
      phase: 'start' | 'end';
      offset: number;
      bytes: number;
      atEof: boolean;
      t: number;
      /** The line's first and (at `end`) last bytes, ≤ 4 KiB each: whose answer it was. */
      head?: Uint8Array;
      tail?: Uint8Array;
    }
  | { type: 'stderr'; data: Uint8Array; t: number }
  | { type: 'counters'; counters: WorkerCounters }
  | { type: 'write-done'; seq: number; waitedMs: number; error?: string }
  /** The spill reached a bound: what it held then (frames, their bytes). */
  | { type: 'overload'; policy: OverloadPolicy; t: number; frames: number; bytes: number }
  | { type: 'stdout-end'; partialBytes: number; t: number }
  /** Tap mode: bytes the relay passed on without a copy for us (counted in droppedBytes). */
  | { type: 'observe-gap'; bytes: number; t: number }
  /** `hostEnded` (tap mode): the host ended the server (tap-protocol.ts `exit`). */
  | { type: 'exit'; exit: ExitInfo; hostEnded?: boolean }
  | {
      type: 'stopped';
      exit: ExitInfo | null;
      counters: WorkerCounters;
      /** Processes of the server still alive after the stop ladder (see child-runner.ts). */
      left: LeftProcess[];
    }
  | { type: 'fatal'; message: string };

/**
 * Frames the spill holds at most, whatever their bytes: a server printing `y\n` as fast as it
 * can (`yes`) had a spill bounded by bytes alone hold 1-byte frames by the million, their
 * metadata far larger than the bytes, and main then needed seconds to route them after the
 * session's deadline. This bound keeps a stop's final flush short however small the frames. A
 * notification flood that main keeps up with never comes near it; against a slow consumer the
 * overload policy applies past it (counted).
 */
export const SPILL_MAX_FRAMES = 1 << 18;
