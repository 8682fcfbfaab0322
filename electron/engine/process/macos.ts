/**
 * Process evidence on macOS, best effort: `ps` gives each process's parent, state, CPU % (a
 * decaying average) and command; wchan is shown where ps has it. There is no per-thread system
 * call, no bytes written and no fd peers (lsof could give peers, at a cost of hundreds of
 * milliseconds a call: not on a sampling cadence). Fields it cannot give are null, never
 * guessed. Untested here (Linux CI); written against ps(1).
 */
import { execFile } from 'node:child_process';
import { MAX_PROCESSES, type ProcessSource, type RawProcess, type RawTree } from './source.js';

interface PsRow {
  pid: number;
  ppid: number;
  state: string;
  cpu: number;
  wchan: string | null;
  command: string;
}

export function parsePs(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+([\d.]+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m) continue;
    rows.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      state: m[3][0],
      cpu: Number(m[4]),
      wchan: m[5] === '-' ? null : m[5],
      command: m[6].slice(0, 200),
    });
  }
  return rows;
}

export function treeFromPs(rows: readonly PsRow[], rootPid: number): RawTree | null {
  const byParent = new Map<number, PsRow[]>();
  for (const r of rows) byParent.set(r.ppid, [...(byParent.get(r.ppid) ?? []), r]);
  const root = rows.find((r) => r.pid === rootPid);
  if (!root) return null;
  const processes: RawProcess[] = [];
  let omitted = 0;
  const stack: { row: PsRow; depth: number }[] = [{ row: root, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop();
    if (!next) break;
    if (processes.length >= MAX_PROCESSES) {
      omitted += 1;
      continue;
    }
    const { row, depth } = next;
    // ps's state letters: R runnable, S sleeping (< 20 s), I idle (longer), U uninterruptible,
    // T stopped, Z zombie. I reads as asleep.
    const state = row.state === 'I' ? 'S' : row.state === 'U' ? 'D' : row.state;
    processes.push({
      pid: row.pid,
      ppid: row.ppid,
      command: row.command,
      state,
      cpuMs: null,
      cpuPercent: row.cpu,
      writtenBytes: null,
      readBytes: null,
      threadCount: 1,
      threads: [
        {
          tid: row.pid,
          state,
          wchan: row.wchan,
          syscall: state === 'R' ? 'running' : null,
          callKey: null,
          fdTarget: null,
        },
      ],
      stdio: [],
      depth,
      identity: `${row.pid}:${row.command}`,
    });
    for (const c of [...(byParent.get(row.pid) ?? [])].reverse())
      stack.push({ row: c, depth: depth + 1 });
  }
  return { rootPid, processes, omitted };
}

export function macosSource(): ProcessSource {
  return {
    availability: { available: true, reason: 'macOS: states and CPU from ps; no system calls' },
    sample: (rootPid) =>
      new Promise((resolve) => {
        execFile(
          'ps',
          ['-A', '-o', 'pid=,ppid=,stat=,%cpu=,wchan=,command='],
          // The C locale: ps prints CPU % with the locale's decimal mark otherwise.
          { timeout: 2000, maxBuffer: 8 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } },
          (err, stdout) => resolve(err ? null : treeFromPs(parsePs(stdout), rootPid)),
        );
      }),
    holders: () => Promise.resolve([]),
  };
}
