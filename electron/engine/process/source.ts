/**
 * Where process evidence comes from, behind one small interface (the brief: platform code
 * behind one interface, Linux complete, macOS best effort, elsewhere an honest "not
 * available"). A source reads one sample of a process tree: per process its state, CPU time,
 * bytes written, stdio fds and threads; per thread its state, wchan and current system call.
 * Deltas over time (CPU %, how long a call has lasted) are the sampler's (sampler.ts).
 */
import type { ProcessAvailability, SyscallInfo } from '../../../shared/process.js';

export interface RawThread {
  tid: number;
  state: string;
  wchan: string | null;
  syscall: SyscallInfo | 'running' | null;
  /** The call with all its arguments: the same key across samples is the same blocked call. */
  callKey: string | null;
  /** What the call's fd names (`pipe:[ino]`, `socket:[ino]`, a path), when it takes one. */
  fdTarget: string | null;
}

export interface RawStdio {
  fd: 0 | 1 | 2;
  target: string | null;
  nonBlocking: boolean | null;
}

export interface RawProcess {
  pid: number;
  ppid: number;
  command: string;
  state: string;
  /** User + system CPU so far (ms); null where unknown. */
  cpuMs: number | null;
  /** CPU % as the system reports it, for sources without CPU times (macOS `ps`). */
  cpuPercent?: number | null;
  writtenBytes: number | null;
  /** Bytes read by read-like calls (`io` rchar). */
  readBytes: number | null;
  threadCount: number;
  threads: RawThread[];
  stdio: RawStdio[];
  depth: number;
  /** Distinguishes a reused pid (Linux start time in ticks; elsewhere the command). */
  identity: string;
}

export interface RawTree {
  rootPid: number;
  processes: RawProcess[];
  omitted: number;
}

/** A process holding a pipe or socket, and how (its fd's access mode). */
export interface Holder {
  pid: number;
  fd: number;
  mode: 'read' | 'write' | 'read-write' | 'unknown';
}

export interface ProcessSource {
  readonly availability: ProcessAvailability;
  /** One sample of the tree under `rootPid` (the root included); null when the root is gone. */
  sample(rootPid: number): Promise<RawTree | null>;
  /** Time its synchronous reads have taken so far (ms), where the source counts it. */
  spentMs?(): number;
  /** Which of `pids` hold an fd naming `target` (`pipe:[ino]`), with the access mode. */
  holders(target: string, pids: readonly number[]): Promise<Holder[]>;
}

/** The most processes and threads a sample reads (a fork bomb must not make sampling cost). */
export const MAX_PROCESSES = 64;
export const MAX_THREADS = 32;

export function unavailableSource(reason: string): ProcessSource {
  return {
    availability: { available: false, reason },
    sample: () => Promise.resolve(null),
    holders: () => Promise.resolve([]),
  };
}
