/**
 * Messages between a tap's relay (the main thread of `pipescope tap`, electron/tap/relay.ts) and
 * the threads that observe what it relays (DESIGN.md "Tap, attach and check").
 *
 * The relay owns the server and both pipes and never waits for an observer: it posts a copy of
 * every chunk it relays, and an observer acknowledges what it took. Past a bound of bytes not yet
 * acknowledged the relay stops copying (a `gap`, counted) rather than hold more or slow down.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ExitInfo } from './protocol.js';

/** Bytes the relay may have posted to one observer and not had acknowledged (per direction). */
export const TAP_OBSERVE_MAX_BYTES = 64 * 1024 * 1024;

/** What the relay knows of the server's stdin (the host's writes to it). */
export interface RelayStdin {
  /** Bytes of the host's (and Pipescope's injected) writes the pipe took. */
  bytes: number;
  pendingBytes: number;
  /** Since when a write waits for the server to read its stdin (null: none waiting). */
  pendingSince: number | null;
  /** Total ms writes waited, the current wait included up to `t`. */
  waitMs: number;
  closed: boolean;
}

/** What the relay knows of the host's side of stdout (the tap's own stdout). */
export interface RelayHost {
  /** Whether the relay reads the server's stdout now (false: the host is not draining ours). */
  reading: boolean;
  /** Since when it has not (null while reading). */
  notReadingSince: number | null;
  /** Total ms it has not read while the server was alive, the current spell up to `t`. */
  notReadingMs: number;
  /** Bytes written to the host and not yet taken by its pipe. */
  pendingBytes: number;
  /** Bytes the host's pipe took. */
  deliveredBytes: number;
  /** When the host last took bytes again after a spell of not reading (null: none yet). */
  resumedAt: number | null;
  /** When the relay last read the server's stdout (null: never). The copies of what it read
   *  may reach the observer later (the native relay holds a burst's until the host has it). */
  serverReadAt: number | null;
}

/** Relay → the transport worker observing stdout (one port). */
export type FromRelay =
  | { type: 'spawned'; pid: number; t: number }
  | { type: 'spawn-error'; code: string; message: string }
  /** A copy of one read of the server's stdout, in order. */
  | { type: 'stdout'; data: ArrayBuffer; t: number }
  | { type: 'stderr'; data: ArrayBuffer; t: number }
  /** stderr bytes the relay passed on without copying (logs not observed, counted). */
  | { type: 'stderr-gap'; bytes: number; t: number }
  /** Bytes of stdout the relay passed on without copying (the observer was too far behind). */
  | { type: 'gap'; bytes: number; t: number }
  | { type: 'stdout-end'; t: number }
  /** `hostEnded`: the host had closed the server's stdin or signalled it (through the tap) by
   *  the time of the exit. The relay sees both on one thread; its observer hears of the host's
   *  end on another channel than of the exit, in either order, so the verdict travels here. */
  | { type: 'exit'; exit: ExitInfo; hostEnded: boolean }
  | { type: 'state'; t: number; host: RelayHost; stdin: RelayStdin }
  | { type: 'inject-done'; seq: number; waitedMs: number; error?: string };

/** The transport worker → relay. */
export type ToRelay =
  /** One line of Pipescope's own (a cancellation) for the server's stdin, written between two
   *  of the host's lines, never inside one. */
  | { type: 'inject'; seq: number; data: Uint8Array }
  /** The worker took `bytes` of copies (of stderr's tee when said, else stdout's). */
  | { type: 'ack'; bytes: number; stream?: 'stderr' };

/** Relay → the observer thread (host → server bytes, and what the tap must be told). */
export type RelayToObserver =
  | { type: 'stdin'; data: ArrayBuffer; t: number }
  | { type: 'stdin-gap'; bytes: number; t: number }
  | { type: 'stdin-end'; t: number }
  /** A large answer's bytes as the host took them: when its first byte was read from the
   *  server, and when the host's pipe took its last. */
  | { type: 'host-read'; offset: number; bytes: number; firstByteAt: number; deliveredAt: number }
  /** The host signalled the tap (forwarded to the server): its exit is the session's end. */
  | { type: 'host-signal'; signal: string }
  /** Write the flight recorder out now (SIGUSR2). */
  | { type: 'dump'; reason: string }
  /** The server is gone and the host's stdout flushed: finish and report. */
  | { type: 'finish' };

/** The observer thread → relay. */
export type ObserverToRelay =
  /** The port the transport worker reads stdout from (the relay posts `FromRelay` to it). */
  | { type: 'stdout-port'; port: MessagePort }
  | { type: 'ack'; bytes: number }
  /** A line for the tap's stderr (never stdout). */
  | { type: 'say'; text: string }
  | { type: 'finished' };

/** Messages as a tap's tee posts them (tap/tee.ts): several at once, each with its own `t`. */
export interface TeeBatch {
  type: 'batch';
  messages: unknown[];
}

/** The messages of what a tee posted: a batch's, in order, or the one message itself. */
export function unbatch<M>(msg: M | TeeBatch): M[] {
  return (msg as TeeBatch)?.type === 'batch' ? ((msg as TeeBatch).messages as M[]) : [msg as M];
}
