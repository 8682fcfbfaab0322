/**
 * The text of /proc files, parsed (proc(5)): a task's `stat` and its current `syscall`. Pure;
 * linux.ts reads the files.
 */
import type { SyscallInfo } from '../../../shared/process.js';
import { syscallTable, takesBytes, takesFd } from './syscalls.js';

/** USER_HZ: the unit of /proc CPU times, 100 on every Linux architecture Node runs on. */
const TICK_MS = 10;

export interface Stat {
  state: string;
  ppid: number;
  cpuMs: number;
  threads: number;
  start: string;
}

export function parseStat(text: string): Stat | null {
  // comm is in parentheses and may hold spaces or parentheses: split after the last one.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 2).split(' ');
  if (rest.length < 20) return null;
  return {
    state: rest[0],
    ppid: Number(rest[1]),
    cpuMs: (Number(rest[11]) + Number(rest[12])) * TICK_MS,
    threads: Number(rest[17]),
    start: rest[19],
  };
}

export function commOf(text: string): string {
  return text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
}

/** `1 0x1 0x55… 0xf4241 …` → write(1, 1,000,001 B); `running`; `-1 …` (not in a call) → null. */
export function parseSyscall(
  text: string,
  table = syscallTable(),
): { call: SyscallInfo | 'running' | null; key: string | null } {
  const line = text.trim();
  if (line === 'running') return { call: 'running', key: null };
  const parts = line.split(' ');
  const nr = Number(parts[0]);
  if (!Number.isInteger(nr) || nr < 0) return { call: null, key: null };
  const name = table?.[nr] ?? null;
  const arg = (i: number): number | null => {
    const v = parts[i + 1];
    if (v === undefined) return null;
    const n = Number.parseInt(v, 16);
    return Number.isFinite(n) ? n : null;
  };
  const fdArg = arg(0);
  // An fd argument is an int: 0xffffffff is -1 (wait4(-1, …) is not an fd anyway).
  const fd = takesFd(name) && fdArg !== null && fdArg < 2 ** 31 ? fdArg : null;
  const bytes = takesBytes(name) ? arg(2) : null;
  return { call: { nr, name, fd, bytes }, key: line };
}
