/**
 * Process bookkeeping for the e2e tests: which processes a browser-mode host started (its
 * descendants, read from `ps`), and which of a set of pids are still alive. Other suites may run
 * demo servers on the same machine at the same time, so the tests track their own pids instead
 * of matching command lines.
 */
import { execFileSync } from 'node:child_process';

export interface ProcessRow {
  pid: number;
  ppid: number;
  /** ps STAT: a leading Z is a zombie (exited, not yet reaped). */
  stat: string;
  args: string;
}

export function listProcesses(): ProcessRow[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' });
  const rows: ProcessRow[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3], args: m[4] });
  }
  return rows;
}

/** Every live process below `root` (children, grandchildren, …). */
export function descendants(root: number, rows = listProcesses()): ProcessRow[] {
  const found: ProcessRow[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) {
      if (parents.has(r.ppid) && !parents.has(r.pid)) {
        parents.add(r.pid);
        found.push(r);
        grew = true;
      }
    }
  }
  return found;
}

/** The processes among `pids` that still exist and are not zombies. */
export function stillRunning(pids: Iterable<number>, rows = listProcesses()): ProcessRow[] {
  const wanted = new Set(pids);
  return rows.filter((r) => wanted.has(r.pid) && !r.stat.startsWith('Z'));
}
