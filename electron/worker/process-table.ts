/**
 * What the stop ladder asks of the system about the server's processes, behind one small
 * interface: which live processes are in a process group, and which hold given pipes or sockets
 * open. Linux reads /proc (all of it readable for our own descendants); macOS asks `ps` for the
 * group (who holds a pipe is not available there); elsewhere nothing is available, and the
 * ladder then does what it can without it (signals only while the leader is unreaped).
 * Synchronous and only used while a session stops, never on the read path.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  pgrp: number;
  /** The command line, arguments joined by spaces (or the command name where that is all). */
  command: string;
}

export interface ProcessTable {
  /** Live (non-zombie) processes whose process group is `pgid`, or null when unknown. */
  groupMembers(pgid: number): ProcessEntry[] | null;
  /** Whether a live process has this pid (null when unknown). */
  exists(pid: number): boolean | null;
  /** The pipes and sockets on the stdio fds of `pid` (`pipe:[ino]`, `socket:[ino]`), or null
   *  when unknown. */
  stdioOf(pid: number): string[] | null;
  /** Live processes, other than `except`, holding an fd that names one of `targets`. */
  holdersOf(targets: readonly string[], except: number): ProcessEntry[] | null;
}

function readProc(pid: string): (ProcessEntry & { state: string }) | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces or parentheses: split after the last one.
    const close = stat.lastIndexOf(')');
    const rest = stat.slice(close + 2).split(' ');
    let command = stat.slice(stat.indexOf('(') + 1, close);
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '');
      if (cmdline !== '') command = cmdline.split('\0').join(' ');
    } catch {
      // kept the comm
    }
    return { pid: Number(pid), state: rest[0], pgrp: Number(rest[2]), command };
  } catch {
    return null; // exited while we looked
  }
}

function pids(): string[] {
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n));
}

const linux: ProcessTable = {
  groupMembers(pgid) {
    const out: ProcessEntry[] = [];
    for (const pid of pids()) {
      const p = readProc(pid);
      if (p && p.pgrp === pgid && p.state !== 'Z') out.push(p);
    }
    return out;
  },
  exists(pid) {
    const p = readProc(String(pid));
    return p !== null && p.state !== 'Z';
  },
  stdioOf(pid) {
    const out: string[] = [];
    for (const fd of [0, 1, 2]) {
      try {
        // Pipes and sockets only: a file or /dev/null is held by anyone.
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (/^(pipe|socket):\[\d+\]$/.test(target)) out.push(target);
      } catch {
        // closed already
      }
    }
    return out;
  },
  holdersOf(targets, except) {
    const wanted = new Set(targets);
    const out: ProcessEntry[] = [];
    for (const pid of pids()) {
      if (Number(pid) === except) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // not ours to read, or gone
      }
      const holds = fds.some((fd) => {
        try {
          return wanted.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false;
        }
      });
      const p = holds ? readProc(pid) : null;
      if (p && p.state !== 'Z') out.push(p);
    }
    return out;
  },
};

function psRows(): (ProcessEntry & { state: string })[] {
  const text = execFileSync('ps', ['-A', '-o', 'pid=,pgid=,stat=,command='], {
    encoding: 'utf8',
    timeout: 2000,
  });
  const rows: (ProcessEntry & { state: string })[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), pgrp: Number(m[2]), state: m[3][0], command: m[4] });
  }
  return rows;
}

const macos: ProcessTable = {
  groupMembers(pgid) {
    try {
      return psRows().filter((p) => p.pgrp === pgid && p.state !== 'Z');
    } catch {
      return null;
    }
  },
  exists(pid) {
    try {
      return psRows().some((p) => p.pid === pid && p.state !== 'Z');
    } catch {
      return null;
    }
  },
  stdioOf: () => null,
  holdersOf: () => null,
};

const unavailable: ProcessTable = {
  groupMembers: () => null,
  exists: () => null,
  stdioOf: () => null,
  holdersOf: () => null,
};

export function processTable(platform: NodeJS.Platform = process.platform): ProcessTable {
  if (platform === 'linux') return linux;
  if (platform === 'darwin') return macos;
  return unavailable;
}
