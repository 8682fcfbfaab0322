/**
 * `pipescope attach <pid>`: the process evidence of a session, applied to an MCP server some
 * other host started, without restarting it or touching its pipes (DESIGN.md "Tap, attach and
 * check"). Samples its tree over a watch window with the session's ProcessSampler (faster
 * while it looks stuck), names who holds the other end of each stdio fd (the host), watches the
 * host's reads and the sockets' queues, and reports in the probe's shape plus an `attach`
 * block (types.ts).
 *
 * Owns, for the window only: the sampler (stopped before the report is built). Fed by: the
 * platform's ProcessSource and the attach reads (proc.ts); both can be given (tests).
 */
import type { Finding } from '../../../shared/findings.js';
import { emptyLiveMetrics, toReportMetrics } from '../../../shared/metrics.js';
import { describeActivity, type ProcessSnapshot, type StdioEnd } from '../../../shared/process.js';
import { type Budgets, DEFAULT_BUDGETS } from '../../../shared/session-options.js';
import { processSource } from '../process/platform.js';
import { FAST_MS, ProcessSampler } from '../process/sampler.js';
import type { ProcessSource } from '../process/source.js';
import { serverOf } from '../session/process-findings.js';
import { hostOf, inodeOf, resolveStdio, withPeers } from './peers.js';
import { type AttachProc, attachProc, type OneProcess, type SocketTable } from './proc.js';
import { attachFindings, needMs } from './rules.js';
import type { AttachBlock, AttachReport, AttachStdio, AttachTreeEntry } from './types.js';

export const DEFAULT_WATCH_MS = 2000;
/** The fewest samples a window ends with (it is stretched, boundedly, to get them). */
export const MIN_SAMPLES = 3;
/** The share of a core a window's sampling may cost: a cold first sample (~7 ms for a Node
 *  server's 11 threads) must not stretch the cadence past the window (the sampler's 1 % is a
 *  session's, for hours). */
const WATCH_COST_SHARE = 0.05;
/** How much longer than asked a window may run to get its samples (ms). */
const STRETCH_MS = 3000;

export const SYSCALL_REFUSED_NOTE =
  'syscall not readable without ptrace rights over the process (run as the same user with ' +
  'kernel.yama.ptrace_scope 0, or as root): the blocked write cannot be proven, only inferred ' +
  'from state and wchan';

export class AttachError extends Error {}

export interface AttachOptions {
  watchMs?: number;
  source?: ProcessSource;
  proc?: AttachProc;
  budgets?: Budgets;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Samples the tree under `pid` for the window: the snapshots, oldest first, and the host's. */
async function watch(
  pid: number,
  watchMs: number,
  source: ProcessSource,
  onFirst: (snap: ProcessSnapshot) => Promise<void>,
  onEach: (t: number) => void,
  alive: (pid: number) => boolean,
): Promise<{ snaps: ProcessSnapshot[]; samples: number }> {
  const t0 = performance.now();
  const now = (): number => Math.round(performance.now() - t0);
  const snaps: ProcessSnapshot[] = [];
  let first: Promise<void> | null = null;
  const sampler = new ProcessSampler({
    source,
    now,
    ownsRootStdio: false,
    costShare: WATCH_COST_SHARE,
    // While something writes without finishing, or burns CPU, sample fast (the session's rule
    // is "an answer owed and stdout quiet"; attach knows no answers, only the process).
    urgent: () => {
      const s = snaps.at(-1);
      return (
        s?.processes.some((p) => p.activity.kind === 'writing' || p.activity.kind === 'running') ??
        false
      );
    },
    onSample: (s) => {
      snaps.push(s);
      // The host is known once the first sample's ends are resolved: watched from then on.
      if (first === null) first = onFirst(s).then(() => onEach(now()));
      else onEach(s.t);
    },
  });
  sampler.start(pid);
  try {
    await sleep(watchMs);
    // The window ends on a sample: the next tick's (at most the slow cadence away), or more,
    // boundedly, until the fewest samples a verdict rests on have come.
    const until = performance.now() + STRETCH_MS;
    const ended = (): boolean =>
      (snaps.at(-1)?.t ?? Number.NEGATIVE_INFINITY) >= watchMs - FAST_MS &&
      snaps.length >= MIN_SAMPLES;
    while (!ended() && performance.now() < until && source.availability.available) {
      if (!alive(pid)) break; // gone: no more samples will come
      await sleep(25);
    }
  } finally {
    sampler.stop();
  }
  await first;
  return { snaps, samples: sampler.samples };
}

function zeroMetrics(stdoutBytes: number, exits: number): AttachReport['metrics'] {
  return { ...toReportMetrics(emptyLiveMetrics()), stdoutBytes, processExits: exits };
}

/** The unread bytes of each socket at the window's end (`ss` read again). */
function withUnreadEnd(stdio: AttachStdio[], table: SocketTable | null): AttachStdio[] {
  return stdio.map((s) => {
    if (!s.unread || s.inode === null || !table) return s;
    const own = table.get(s.inode);
    const row = s.fd === 0 ? own : own ? table.get(own.peer) : undefined;
    return { ...s, unread: { start: s.unread.start, end: row?.recvQ ?? s.unread.end } };
  });
}

/** Peers of the tree's other sockets (a child's socketpair with the server), by ss. */
async function socketPeers(
  snap: ProcessSnapshot | undefined,
  table: SocketTable | null,
  source: ProcessSource,
): Promise<(target: string) => StdioEnd['peer'] | undefined> {
  const found = new Map<string, StdioEnd['peer']>();
  if (!snap || !table) return () => undefined;
  const pids = snap.processes.map((p) => p.pid);
  const commands = new Map(snap.processes.map((p) => [p.pid, p.command]));
  for (const p of snap.processes) {
    for (const e of p.stdio) {
      const row = e.target?.startsWith('socket:') ? table.get(inodeOf(e.target) ?? -1) : undefined;
      if (!e.target || !row || found.has(e.target)) continue;
      const other = `socket:[${row.peer}]`;
      const h = (await source.holders(other, pids)).find((x) => x.pid !== p.pid);
      found.set(
        e.target,
        h
          ? {
              pid: h.pid,
              command: commands.get(h.pid) ?? '',
              note: `holds ${other} (ss) as fd ${h.fd}`,
            }
          : null,
      );
    }
  }
  return (target) => found.get(target) ?? undefined;
}

export async function attach(pid: number, o: AttachOptions = {}): Promise<AttachReport> {
  const watchMs = o.watchMs ?? DEFAULT_WATCH_MS;
  const proc = o.proc ?? attachProc();
  const checked = proc.check(pid);
  if (!checked.ok) throw new AttachError(checked.reason);
  const source = o.source ?? processSource();
  const budgets = o.budgets ?? DEFAULT_BUDGETS;
  const argv = proc.argvOf(pid) ?? [];
  const syscall = proc.syscallAccess(pid);
  const startTable = await proc.unixSockets();

  let stdio: AttachStdio[] = [];
  let host: AttachBlock['host'] = null;
  const hostSeen: { t: number; p: OneProcess }[] = [];
  const { snaps, samples } = await watch(
    pid,
    watchMs,
    source,
    async (snap) => {
      const root = snap.processes[0];
      const targets = [0, 1, 2].map((fd) => root?.stdio.find((s) => s.fd === fd)?.target ?? null);
      stdio = await resolveStdio(pid, targets, {
        proc,
        holders: (target, pids) => source.holders(target, pids),
        tree: new Set(snap.processes.map((p) => p.pid)),
        sockets: startTable,
      });
      host = hostOf(stdio);
    },
    (t) => {
      const seen = host ? proc.one(host.pid) : null;
      if (seen) hostSeen.push({ t, p: seen });
    },
    (p) => proc.check(p).ok,
  );
  if (snaps.length === 0 && source.availability.available && !proc.check(pid).ok) {
    throw new AttachError(`process ${pid} exited before it could be sampled`);
  }
  const endTable = startTable ? await proc.unixSockets() : null;
  stdio = withUnreadEnd(stdio, endTable);
  const peers = await socketPeers(snaps.at(-1), endTable ?? startTable, source);
  const filled = snaps.map((s) => withPeers(s, stdio, peers));
  const goneAt = filled.length > 0 && !proc.check(pid).ok ? (filled.at(-1)?.t ?? 0) : null;
  const verdict = source.availability.available
    ? attachFindings({
        snapshots: filled,
        stdio,
        host,
        hostSeen,
        syscall,
        watchMs,
        budgets,
        goneAt,
      })
    : {
        findings: [] as Finding[],
        summary: `process evidence is not available here: ${source.availability.reason ?? 'unknown'}`,
      };

  // What the server wrote: the process that is the server (behind a wrapper such as npx).
  const lastSnap = filled.at(-1);
  const last = lastSnap ? (serverOf(lastSnap) ?? lastSnap.processes[0]) : undefined;
  const first = filled
    .find((s) => s.processes.some((p) => p.pid === last?.pid))
    ?.processes.find((p) => p.pid === last?.pid);
  const written =
    first && last && first.writtenBytes !== null && last.writtenBytes !== null
      ? last.writtenBytes - first.writtenBytes
      : null;
  const observedMs = filled.length > 1 ? (filled.at(-1)?.t ?? 0) - (filled[0]?.t ?? 0) : 0;
  const parentPid = proc.parentOf(pid);
  const note = notes({
    syscall,
    stdio,
    written,
    startTable,
    watchMs,
    budgets,
    available: source.availability.available,
    last,
  });
  const attachBlock: AttachBlock = {
    watchMs,
    observedMs,
    tree: treeOf(filled.at(-1)),
    stdio,
    host,
    parent:
      parentPid === null ? null : { pid: parentPid, command: proc.commandOf(parentPid) ?? '' },
    syscallReadable: syscall === 'readable',
    written: {
      bytes: written,
      source:
        written === null
          ? `unknown: /proc/${pid}/io is not readable here`
          : `wchar of pid ${last?.pid ?? pid} over ${(observedMs / 1000).toFixed(1)} s: every byte its write() calls returned (stdout, stderr, files and sockets alike)`,
    },
    summary: verdict.summary,
    ...(note ? { note } : {}),
  };
  return {
    server: {
      command: argv[0] ?? last?.command ?? '',
      args: argv.slice(1),
      pid,
      exit: null,
    },
    metrics: zeroMetrics(written ?? 0, goneAt === null ? 0 : 1),
    requests: [],
    recovery: null,
    findings: verdict.findings,
    process: { ...source.availability, samples },
    attach: attachBlock,
  };
}

function treeOf(snap: ProcessSnapshot | undefined): AttachTreeEntry[] {
  return (snap?.processes ?? []).map((p) => ({
    pid: p.pid,
    command: p.command,
    ppid: p.ppid,
    depth: p.depth,
    state: p.state,
    cpuPercent: p.cpuPercent,
    wchan: p.activity.wchan,
    syscall: p.activity.syscall
      ? {
          name: p.activity.syscall.name,
          fd: p.activity.syscall.fd,
          bytes: p.activity.syscall.bytes,
        }
      : null,
    doing: describeActivity(p.activity, p.cpuPercent, p.depth > 0),
  }));
}

function notes(o: {
  syscall: ReturnType<AttachProc['syscallAccess']>;
  stdio: readonly AttachStdio[];
  written: number | null;
  startTable: SocketTable | null;
  watchMs: number;
  budgets: Budgets;
  available: boolean;
  last: ProcessSnapshot['processes'][number] | undefined;
}): string | null {
  if (!o.available) return null;
  const out: string[] = [];
  if (o.syscall === 'refused') out.push(SYSCALL_REFUSED_NOTE);
  if (o.syscall === 'absent') {
    out.push('this kernel gives no /proc/PID/syscall: calls are inferred from state and wchan');
  }
  if (o.last && o.last.state !== 'Z' && o.stdio.every((s) => s.target === null)) {
    out.push(
      "its fds are not readable (another user's process): its stdio and the host cannot be named",
    );
  }
  if (o.written === null) out.push('its /proc/PID/io is not readable: bytes written are unknown');
  if (o.startTable === null && o.stdio.some((s) => s.kind === 'socket')) {
    out.push(
      "ss (iproute2) did not run: a socket's peer is guessed from the inode next to it, and the bytes queued in it are unknown",
    );
  }
  const need = needMs(o.budgets.writeBlockedMs, o.watchMs);
  if (need < o.budgets.writeBlockedMs) {
    out.push(
      `the ${o.watchMs} ms window is shorter than the budgets allow for (a write blocked ${o.budgets.writeBlockedMs} ms): a block of ${need} ms counts as one`,
    );
  }
  return out.length > 0 ? out.join('; ') : null;
}
