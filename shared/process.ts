/**
 * Process evidence: what the server's process tree was doing, as the engine's sampler saw it
 * (DESIGN.md "Process evidence"). The shapes the engine produces, the renderer's process panel
 * shows, traces record, and findings attach as `evidence`; plus the words for an activity, so
 * the CLI, the panel and the findings say the same thing. Pure: no DOM, no Node.
 */

/** A thread's current system call, as /proc/PID/task/TID/syscall gives it. */
export interface SyscallInfo {
  /** The number (architecture-specific) and its name where known. */
  nr: number;
  name: string | null;
  /** The fd argument, for the calls that take one (read, write, …). */
  fd: number | null;
  /** The byte count argument, for read/write/pread/pwrite/sendto/recvfrom. */
  bytes: number | null;
}

/** What a thread (or a process, by its most telling thread) is doing, in kinds. */
export type ActivityKind =
  | 'writing' // in a write-like call (blocked when it lasts)
  | 'reading' // in a read-like call
  | 'waiting-child' // wait4 / waitid
  | 'event-loop' // epoll_wait / poll / select: idle, waiting for I/O
  | 'running' // on CPU
  | 'sleeping' // futex, nanosleep, anything else asleep
  | 'stopped' // T / t
  | 'zombie'
  | 'unknown';

export interface Activity {
  kind: ActivityKind;
  /** The thread it was seen on. */
  tid: number;
  syscall: SyscallInfo | null;
  wchan: string | null;
  /** ms it has been in this same call (same number and arguments) across samples; null if
   *  seen only once or not in a call. */
  forMs: number | null;
  /** What the fd of the call is, when known: 'stdin', 'stdout', 'stderr', `pipe:[ino]`, … */
  fdTarget: string | null;
}

/** One stdio fd of a process and who holds its other end. */
export interface StdioEnd {
  fd: 0 | 1 | 2;
  /** `pipe:[ino]`, `socket:[ino]`, a path, or null when unreadable / closed. */
  target: string | null;
  nonBlocking: boolean | null;
  /** Who holds the other end: another process of the tree, Pipescope itself, nobody. */
  peer: { pid: number; command: string; note: string } | null;
}

export interface ThreadSample {
  tid: number;
  /** Kernel state letter: R running, S sleeping, D disk wait, T stopped, Z zombie, … */
  state: string;
  wchan: string | null;
  syscall: SyscallInfo | 'running' | null;
}

export interface ProcessSample {
  pid: number;
  ppid: number;
  /** Command line (cut to 200 characters). */
  command: string;
  /** The main thread's state letter. */
  state: string;
  /** CPU over the last interval, % of one core (null on the first sample). */
  cpuPercent: number | null;
  /** Total CPU time (user + system) so far, ms. */
  cpuMs: number;
  /** Bytes written by write-like calls (`io` wchar), null where unreadable. */
  writtenBytes: number | null;
  /** Bytes read by read-like calls (`io` rchar), null where unreadable. */
  readBytes?: number | null;
  /** Written bytes per second over the last interval. */
  writeRate: number | null;
  threadCount: number;
  /** Threads sampled (at most a few dozen; the rest counted in threadCount). */
  threads: ThreadSample[];
  /** The most telling thing the process is doing (a blocked write beats an idle event loop). */
  activity: Activity;
  /** fds 0, 1, 2 (Linux); empty where unknown. */
  stdio: StdioEnd[];
  /** Depth in the tree (0: the server itself). */
  depth: number;
}

/** One sample of the whole tree. */
export interface ProcessSnapshot {
  /** ms since session start. */
  t: number;
  rootPid: number;
  /** Root first, then depth-first. */
  processes: ProcessSample[];
  /** Processes not sampled (the tree was larger than the cap). */
  omitted: number;
}

/** Whether process evidence can be had here, and why not. */
export interface ProcessAvailability {
  available: boolean;
  reason?: string;
}

/** What a finding rests on (DESIGN.md: `pid`, `command`, `state`, `wchan`, `syscall`,
 *  `cpuPercent`, `ms`); for transport findings, other facts may be added. */
export interface FindingEvidence {
  pid?: number;
  command?: string;
  state?: string;
  wchan?: string | null;
  syscall?: { name: string | null; fd: number | null; bytes: number | null } | null;
  cpuPercent?: number | null;
  ms?: number;
  /** Anything else the rule saw (the child blocked, the reader mode, …). */
  [key: string]: unknown;
}

const FD_NAMES: Record<number, string> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

/** `12582994` → `12,582,994`: by hand, since toLocaleString builds an Intl formatter per call
 *  (about a millisecond: too much for a rule that runs ten times a second). */
export function groupDigits(n: number): string {
  const whole = Math.trunc(n);
  const digits = String(Math.abs(whole));
  let out = '';
  for (let i = 0; i < digits.length; i += 1) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return whole < 0 ? `-${out}` : out;
}

export function bytesWord(n: number): string {
  return `${groupDigits(n)} B`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `write(1, 1,000,000 B)`: a syscall as people read it. */
export function describeSyscall(s: SyscallInfo): string {
  const name = s.name ?? `syscall ${s.nr}`;
  const args = [s.fd === null ? null : String(s.fd), s.bytes === null ? null : bytesWord(s.bytes)]
    .filter((x) => x !== null)
    .join(', ');
  return `${name}(${args})`;
}

/** What an fd is, in words: `stdout`, or the pipe's name. */
export function fdWord(fd: number | null, target: string | null): string {
  if (target && !/^(pipe|socket):/.test(target)) return target;
  if (fd !== null && FD_NAMES[fd] !== undefined) return FD_NAMES[fd];
  return target ?? (fd === null ? 'an fd' : `fd ${fd}`);
}

/**
 * "writing stdout (1,000,000 B), blocked 3.1 s", "idle in its event loop (epoll_wait)", … For a
 * process under the server (`child`), its stdio is its own: "writing its stdout, pipe:[123]".
 */
export function describeActivity(
  a: Activity,
  cpuPercent: number | null = null,
  child = false,
): string {
  const call = a.syscall ? (a.syscall.name ?? `syscall ${a.syscall.nr}`) : null;
  const lasting = a.forMs !== null && a.forMs >= 500 ? `, blocked ${seconds(a.forMs)}` : '';
  const word = fdWord(a.syscall?.fd ?? null, a.fdTarget);
  const piped = a.fdTarget !== null && /^(pipe|socket):/.test(a.fdTarget);
  const where = child && piped && word !== a.fdTarget ? `its ${word}, ${a.fdTarget}` : word;
  switch (a.kind) {
    case 'writing': {
      const n = a.syscall?.bytes;
      return `writing ${where}${n === null || n === undefined ? '' : ` (${bytesWord(n)})`}${lasting}`;
    }
    case 'reading':
      return `waiting to read ${where}${a.forMs !== null && a.forMs >= 500 ? ` for ${seconds(a.forMs)}` : ''}`;
    case 'waiting-child':
      return `waiting for a child to exit (${call ?? 'wait'})${a.forMs !== null && a.forMs >= 500 ? ` for ${seconds(a.forMs)}` : ''}`;
    case 'event-loop':
      return `idle in its event loop (${call ?? 'poll'})`;
    case 'running':
      return cpuPercent === null ? 'on CPU' : `on CPU (${Math.round(cpuPercent)} % of a core)`;
    case 'sleeping':
      return `asleep${call ? ` in ${call}` : a.wchan ? ` (${a.wchan})` : ''}`;
    case 'stopped':
      return 'stopped (signal or debugger)';
    case 'zombie':
      return 'exited, not yet reaped (zombie)';
    default:
      return 'state unknown';
  }
}

/** "1234 python3 srv.py: writing stdout (1,000,000 B), blocked 3.1 s, 0 % CPU". */
export function describeProcess(p: ProcessSample): string {
  const cpu =
    p.cpuPercent === null || p.activity.kind === 'running'
      ? ''
      : `, ${Math.round(p.cpuPercent)} % CPU`;
  const doing = describeActivity(p.activity, p.cpuPercent, p.depth > 0);
  return `${p.pid} ${p.command.slice(0, 60)}: ${doing}${cpu}`;
}
