/**
 * What attach reads about processes outside the sampled tree, behind one small interface so
 * that the rules and the orchestration can be tested on canned data: whether a pid can be
 * attached to, its parent, its command line, one process's state (the host's), the table of
 * Unix sockets with their peers and queues (`ss -xn`: /proc names a socket's inode but not its
 * peer), and every pid (to find who holds an end). Linux reads /proc; elsewhere only a pid's
 * existence can be checked and the rest is unknown.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Activity } from '../../../shared/process.js';
import { activityOf } from '../process/activity.js';
import { readSmall } from '../process/linux.js';
import { commOf, parseStat, parseSyscall } from '../process/proc-parse.js';

/** One socket of `ss -xn`: its peer's inode and the bytes queued at this end. */
export interface SocketRow {
  peer: number;
  /** Bytes received and not yet read by whoever holds this end. */
  recvQ: number;
  /** Bytes sent from this end not yet read by the peer. */
  sendQ: number;
}

export type SocketTable = Map<number, SocketRow>;

/** One process as attach sees it from outside: state, bytes read, what its main thread does. */
export interface OneProcess {
  pid: number;
  state: string;
  cpuMs: number | null;
  readBytes: number | null;
  activity: Activity;
}

export type PidCheck = { ok: true } | { ok: false; reason: string };

export type SyscallAccess = 'readable' | 'refused' | 'absent';

export interface AttachProc {
  check(pid: number): PidCheck;
  parentOf(pid: number): number | null;
  /** The command line, arguments joined by spaces (null when gone or unreadable). */
  commandOf(pid: number): string | null;
  /** The arguments themselves. */
  argvOf(pid: number): string[] | null;
  /** The /proc links of fds 0-2 (null for one that is closed or unreadable). */
  stdioOf(pid: number): (string | null)[];
  allPids(): number[];
  syscallAccess(pid: number): SyscallAccess;
  one(pid: number): OneProcess | null;
  /** null when `ss` is not there (or failed): socket peers are then guessed, queues unknown. */
  unixSockets(): Promise<SocketTable | null>;
}

/** `u_str ESTAB 153728 0 * 853520 * 853521` → 853520: peer 853521, Recv-Q 153728. */
export function parseUnixSockets(text: string): SocketTable {
  const table: SocketTable = new Map();
  for (const line of text.split('\n')) {
    const m = /^u_\w+\s+\S+\s+(\d+)\s+(\d+)\s+.*?\s(\d+)\s+\S+\s+(\d+)\s*$/.exec(line);
    if (!m) continue;
    table.set(Number(m[3]), { recvQ: Number(m[1]), sendQ: Number(m[2]), peer: Number(m[4]) });
  }
  return table;
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? 'unknown';
}

function linuxCheck(pid: number): PidCheck {
  if (!Number.isSafeInteger(pid) || pid <= 0) {
    return { ok: false, reason: `not a process id: ${pid}` };
  }
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' || code === 'ESRCH')
      return { ok: false, reason: `no such process: ${pid}` };
    return {
      ok: false,
      reason: `not permitted to read /proc/${pid} (${code}): /proc may be mounted with hidepid, or the process belongs to another user`,
    };
  }
  const tgid = /^Tgid:\s*(\d+)/m.exec(status);
  if (tgid && Number(tgid[1]) !== pid) {
    return { ok: false, reason: `${pid} is a thread of process ${tgid[1]}: attach to ${tgid[1]}` };
  }
  return { ok: true };
}

function linuxArgv(pid: number): string[] | null {
  const text = readSmall(`/proc/${pid}/cmdline`, 'utf8');
  if (text === null) return null;
  const argv = text.replace(/\0+$/, '').split('\0');
  return argv.length === 1 && argv[0] === '' ? [] : argv;
}

function linuxCommand(pid: number): string | null {
  const argv = linuxArgv(pid);
  if (argv === null) return null;
  if (argv.length > 0) return argv.join(' ').slice(0, 200);
  const stat = readSmall(`/proc/${pid}/stat`);
  return stat === null ? null : `[${commOf(stat)}]`;
}

function linuxOne(pid: number): OneProcess | null {
  const statText = readSmall(`/proc/${pid}/stat`);
  const stat = statText === null ? null : parseStat(statText);
  if (!stat) return null;
  const io = readSmall(`/proc/${pid}/io`);
  const rchar = io === null ? null : /rchar:\s*(\d+)/.exec(io);
  const base = `/proc/${pid}/task/${pid}`;
  const wchan = readSmall(`${base}/wchan`);
  const sys = readSmall(`${base}/syscall`);
  const parsed = sys === null ? { call: null, key: null } : parseSyscall(sys);
  let fdTarget: string | null = null;
  if (parsed.call && parsed.call !== 'running' && parsed.call.fd !== null) {
    try {
      fdTarget = readlinkSync(`/proc/${pid}/fd/${parsed.call.fd}`);
    } catch {
      fdTarget = null;
    }
  }
  const thread = {
    tid: pid,
    state: stat.state,
    wchan: wchan === null || wchan === '0' || wchan === '' ? null : wchan,
    syscall: stat.state === 'R' ? ('running' as const) : parsed.call,
    callKey: parsed.key,
    fdTarget,
    forMs: null,
  };
  return {
    pid,
    state: stat.state,
    cpuMs: stat.cpuMs,
    readBytes: rchar ? Number(rchar[1]) : null,
    activity: activityOf(pid, [thread], stat.state, null),
  };
}

function linuxSyscallAccess(pid: number): SyscallAccess {
  try {
    readFileSync(`/proc/${pid}/syscall`, 'latin1');
    return 'readable';
  } catch (e) {
    const code = errorCode(e);
    return code === 'EACCES' || code === 'EPERM' ? 'refused' : 'absent';
  }
}

function ssTable(): Promise<SocketTable | null> {
  return new Promise((resolve) => {
    execFile(
      'ss',
      ['-xn'],
      { timeout: 3000, maxBuffer: 32 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout) => resolve(err ? null : parseUnixSockets(stdout)),
    );
  });
}

export function linuxAttachProc(): AttachProc {
  return {
    check: linuxCheck,
    parentOf: (pid) => {
      const text = readSmall(`/proc/${pid}/stat`);
      const stat = text === null ? null : parseStat(text);
      return stat && stat.ppid > 0 ? stat.ppid : null;
    },
    commandOf: linuxCommand,
    argvOf: linuxArgv,
    stdioOf: (pid) =>
      [0, 1, 2].map((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return null;
        }
      }),
    allPids: () => {
      try {
        return readdirSync('/proc')
          .filter((n) => /^\d+$/.test(n))
          .map(Number);
      } catch {
        return [];
      }
    },
    syscallAccess: linuxSyscallAccess,
    one: linuxOne,
    unixSockets: ssTable,
  };
}

/** Elsewhere: whether the pid exists (signal 0), nothing more from outside the tree. */
export function portableAttachProc(): AttachProc {
  return {
    check: (pid) => {
      if (!Number.isSafeInteger(pid) || pid <= 0) {
        return { ok: false, reason: `not a process id: ${pid}` };
      }
      try {
        process.kill(pid, 0);
        return { ok: true };
      } catch (e) {
        // EPERM: it exists, it is only not ours to signal (attach sends no signal).
        return errorCode(e) === 'EPERM'
          ? { ok: true }
          : { ok: false, reason: `no such process: ${pid}` };
      }
    },
    parentOf: () => null,
    commandOf: () => null,
    argvOf: () => null,
    stdioOf: () => [null, null, null],
    allPids: () => [],
    syscallAccess: () => 'absent',
    one: () => null,
    unixSockets: () => Promise.resolve(null),
  };
}

export function attachProc(platform: NodeJS.Platform = process.platform): AttachProc {
  return platform === 'linux' ? linuxAttachProc() : portableAttachProc();
}
