/**
 * The `pipescope attach --json` report: the probe's report (probe-report.ts, the same keys,
 * `requests: []`, `recovery: null`, `exit: null`) plus one block of its own, `attach`: what was
 * watched, the server's stdio and who holds the other end of each, the host, whether the
 * current system call could be read. And the candidates of `attach --list`. Made by
 * electron/engine/attach/ (attach.ts, candidates.ts); read by the CLI and, over the HostApi
 * (`attach:list`, `attach:run`), by the start screen.
 */
import type { ProbeReport } from './probe-report.js';

/** What an fd is: from its /proc link (`pipe:[ino]`, `socket:[ino]`, `/dev/pts/3`, a path). */
export type StdioKind = 'pipe' | 'socket' | 'tty' | 'null' | 'file' | 'other' | 'unknown';

/** A process, by pid and command line. */
export interface ProcRef {
  pid: number;
  command: string;
}

/** Who holds the other end of one of the server's stdio fds. */
export interface StdioPeer extends ProcRef {
  /** Its fd on that end (null where only guessed). */
  fd: number | null;
  /** How it was found, in words ("holds the read end as fd 21", "its socket's peer (ss)"). */
  how: string;
}

export interface AttachStdio {
  fd: 0 | 1 | 2;
  kind: StdioKind;
  /** The /proc link (`pipe:[123]`), null when closed or not readable. */
  target: string | null;
  inode: number | null;
  /** The reader of fd 1 and 2, the writer of fd 0; null when nobody /proc can see holds it. */
  peer: StdioPeer | null;
  /** Sockets: bytes waiting unread at the reader's end (fd 1, 2: the peer's Recv-Q; fd 0: the
   *  server's), at the start and the end of the window; null where `ss` could not say. */
  unread: { start: number; end: number } | null;
}

/** One process of the server's tree at the last sample: its state and what it is doing. */
export interface AttachTreeEntry extends ProcRef {
  ppid: number;
  /** 0: the process attached to. */
  depth: number;
  state: string;
  cpuPercent: number | null;
  wchan: string | null;
  syscall: { name: string | null; fd: number | null; bytes: number | null } | null;
  /** In words: "writing stdout (16,384 B), blocked 1.4 s". */
  doing: string;
}

export interface AttachBlock {
  /** The watch window asked for, and what the samples spanned (ms). */
  watchMs: number;
  observedMs: number;
  /** The tree at the last sample, the process attached to first. */
  tree: AttachTreeEntry[];
  stdio: AttachStdio[];
  /** The host: the peer of stdout (else of stdin); null when none could be named. */
  host: (ProcRef & { how: string }) | null;
  parent: ProcRef | null;
  /** Whether /proc/PID/syscall could be read (it needs ptrace rights over the process). */
  syscallReadable: boolean;
  /** What the server wrote over the window, and what that number is. */
  written: { bytes: number | null; source: string };
  /** One line: what the server is doing, as the last sample saw it. */
  summary: string;
  /** What limited the evidence (no ptrace rights, a short window, no `ss`), when anything did. */
  note?: string;
}

export interface AttachReport extends ProbeReport {
  attach: AttachBlock;
}

/** A process that is likely an MCP server some host started (`attach --list`). */
export interface Candidate extends ProcRef {
  ppid: number;
  parentCommand: string;
  /** Why it is listed: its parent is a known host, and/or it runs a configured server. */
  why: string[];
}
