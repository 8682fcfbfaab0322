/**
 * What test/bench/tap-cost.mjs reads of its processes in /proc (Linux): peak memory, CPU time,
 * what a child's stdout is, and the tap's own children.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function status(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
}
export const kib = (text, field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text ?? '')?.[1] ?? Number.NaN);

/** What the child's stdout is: `socket:[…]` (Node's spawn makes socketpairs) or `pipe:[…]`. */
export function endKind(pid) {
  try {
    return readlinkSync(`/proc/${pid}/fd/1`).split(':')[0];
  } catch {
    return '?';
  }
}

/** CPU ticks the process has used (utime + stime). */
function ticks(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The tap's children (its server) into `servers`, so they can be killed if the tap itself is. */
export function noteServers(pid, servers) {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' '))
        if (c.trim()) servers.add(Number(c));
  } catch {}
}

/** Polls the tap's VmHWM until it exits (VmHWM is the kernel's own peak, so polling only has
 *  to come late enough). `poll: false`: read only when asked (`read()`), for the latency runs,
 *  where a 25 ms poll in this process (the host) put its own 0.5 ms on the p99 of any path. */
export function watchMemory(child, servers, { poll = true } = {}) {
  const pid = child.pid;
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  // Empty while the relay in front (tap-front) execs Node in that pid.
  if (cmdline !== '' && !/pipescope\.js|--relay-(only|stub|pipe|native)/.test(cmdline))
    throw new Error(`pid ${pid} is not the tap: ${cmdline}`);
  // The native relay is a process of its own, watched apart: a burst's copies wait there in
  // pipes (the server's own pages, kernel memory that no RSS shows), past them in its ring.
  const w = { hwmKiB: 0, nativeKiB: null };
  w.read = () => {
    const s = status(pid);
    const hwm = kib(s, 'VmHWM'); // absent once the tap is a zombie
    if (Number.isFinite(hwm)) w.hwmKiB = Math.max(w.hwmKiB, hwm);
    noteServers(pid, servers);
    for (const c of servers) {
      const cs = status(c);
      if (!/^Name:\s+pipescope-rela/m.test(cs)) continue;
      const n = kib(cs, 'VmHWM');
      if (Number.isFinite(n)) w.nativeKiB = Math.max(w.nativeKiB ?? 0, n);
    }
  };
  w.read();
  if (!poll) return w;
  const timer = setInterval(w.read, 25);
  child.once('exit', () => clearInterval(timer));
  return w;
}

/** Waits until the process has used no CPU for 100 ms (the observer is done with what it got). */
export async function untilIdle(pid, maxMs = 3000) {
  const t0 = performance.now();
  let last = ticks(pid);
  while (performance.now() - t0 < maxMs) {
    await sleep(100);
    const now = ticks(pid);
    if (now === null || now === last) return;
    last = now;
  }
}
