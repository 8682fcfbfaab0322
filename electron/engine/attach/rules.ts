/**
 * What the samples of an attach window say, as findings with the codes and evidence of a
 * session's (process-findings.ts): `server-write-blocked` and `host-not-reading` (the server
 * blocked writing stdout whose reader, the host, does not drain it; or bytes waiting unread at
 * the host's end of the socket), `subprocess-blocked`, `server-busy`, `server-exited`; and a
 * one-line summary of what the server is doing (an idle server waits for the host's next
 * request). Attach knows no requests: a rule rests on the process alone, over the window.
 * Pure: the samples, the stdio links and the host's samples come in, findings go out.
 */
import { type Finding, type FindingCode, findingLevel } from '../../../shared/findings.js';
import {
  bytesWord,
  describeActivity,
  describeProcess,
  describeSyscall,
  type FindingEvidence,
  type ProcessSample,
  type ProcessSnapshot,
} from '../../../shared/process.js';
import type { Budgets } from '../../../shared/session-options.js';
import { descendantsOf, evidenceOf, serverOf } from '../session/process-findings.js';
import type { OneProcess, SyscallAccess } from './proc.js';
import type { AttachStdio, ProcRef } from './types.js';

/** Where a thread sleeps while a write waits for room (pipe, Unix socket, TCP). */
const WRITE_WCHANS = new Set([
  'pipe_write',
  'anon_pipe_write',
  'sock_alloc_send_pskb',
  'unix_stream_sendmsg',
  'sk_stream_wait_memory',
]);
/** CPU % below which a process counts as idle. */
const IDLE_CPU_PERCENT = 5;

export interface AttachInput {
  /** Samples of the tree over the window, oldest first, with the host's ends filled in. */
  snapshots: readonly ProcessSnapshot[];
  stdio: readonly AttachStdio[];
  host: (ProcRef & { how: string }) | null;
  /** The host process over the window, oldest first (its state, bytes read). */
  hostSeen: readonly { t: number; p: OneProcess }[];
  syscall: SyscallAccess;
  watchMs: number;
  budgets: Budgets;
  /** When the server was last seen, if it exited during the window (ms); else null. */
  goneAt: number | null;
}

export interface AttachVerdict {
  findings: Finding[];
  summary: string;
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function short(command: string): string {
  return command.length > 60 ? `${command.slice(0, 59)}…` : command;
}

/** A rule's duration: its budget, or what the window can show when it is shorter. */
export function needMs(budget: number, watchMs: number): number {
  return Math.min(budget, Math.round(watchMs * 0.75));
}

/** How long `key` of a process has not moved, up to the last sample (Infinity if unknown). */
function stillFor(
  snaps: readonly ProcessSnapshot[],
  pid: number,
  key: (p: ProcessSample) => number | null | undefined,
): number {
  const last = snaps.at(-1);
  const now = last?.processes.find((p) => p.pid === pid);
  const value = now ? key(now) : null;
  if (!last || value === null || value === undefined) return Number.POSITIVE_INFINITY;
  let since = last.t;
  for (let i = snaps.length - 1; i >= 0; i -= 1) {
    const p = snaps[i].processes.find((x) => x.pid === pid);
    if (!p || key(p) !== value) break;
    since = snaps[i].t;
  }
  return last.t - since;
}

function finding(code: FindingCode, message: string, evidence?: FindingEvidence): Finding {
  return { code, level: findingLevel(code), message, ...(evidence ? { evidence } : {}) };
}

interface Block {
  p: ProcessSample;
  ms: number;
  proven: boolean;
}

/** A process of the tree blocked writing towards the host (the server's stdout). */
function blockedWrite(
  snaps: readonly ProcessSnapshot[],
  root: ProcessSample,
  stdoutTarget: string | null,
  need: number,
): Block | null {
  const last = snaps.at(-1);
  if (!last) return null;
  for (const p of [root, ...last.processes.filter((q) => q !== root && q.state !== 'Z')]) {
    const a = p.activity;
    const towardsHost =
      (stdoutTarget !== null && a.fdTarget === stdoutTarget) || (p === root && a.syscall?.fd === 1);
    if (a.kind === 'writing' && towardsHost && (a.forMs ?? 0) >= need) {
      return { p, ms: a.forMs ?? 0, proven: true };
    }
  }
  // Without the syscall (no ptrace rights): asleep where a write waits, and nothing written.
  const a = root.activity;
  const idle = stillFor(snaps, root.pid, (p) => p.writtenBytes);
  if (
    a.syscall === null &&
    a.wchan !== null &&
    WRITE_WCHANS.has(a.wchan) &&
    idle >= need &&
    idle !== Number.POSITIVE_INFINITY
  ) {
    return { p: root, ms: idle, proven: false };
  }
  return null;
}

export function attachFindings(i: AttachInput): AttachVerdict {
  const snaps = i.snapshots;
  const last = snaps.at(-1);
  const first = snaps[0];
  const findings: Finding[] = [];
  if (!last || !first) {
    return { findings, summary: 'no sample of the process could be taken' };
  }
  const root = serverOf(last) ?? last.processes[0];
  if (!root) return { findings, summary: 'no sample of the process could be taken' };
  const b = i.budgets;
  const out = i.stdio.find((s) => s.fd === 1);
  const observed = last.t - first.t;
  const block = blockedWrite(snaps, root, out?.target ?? null, needMs(b.writeBlockedMs, i.watchMs));
  const hostNow = i.hostSeen.at(-1)?.p ?? null;

  if (i.goneAt !== null) {
    findings.push(
      finding(
        'server-exited',
        `pid ${root.pid} (${short(root.command)}) exited during the watch window, last seen ` +
          `${secs(i.goneAt)} into it (its exit status is its parent's to read, not ours)`,
        evidenceOf(root),
      ),
    );
  }
  if (block) findings.push(writeBlocked(block, out, i));
  const notReading = hostNotReading(block, out, i, observed, hostNow);
  if (notReading) findings.push(notReading);
  const child = subprocessBlocked(snaps, root, i);
  if (child) findings.push(child);
  const busy = serverBusy(snaps, root, i);
  if (busy) findings.push(busy);
  const stdin = stdinBlocked(i, observed);
  if (stdin) findings.push(stdin);
  return { findings, summary: summaryOf(root, block, i, notReading ? (out?.unread?.end ?? 0) : 0) };
}

function readerWords(out: AttachStdio | undefined, host: AttachInput['host']): string {
  if (out?.peer && host && out.peer.pid === host.pid) {
    return `its reader, the host (pid ${host.pid}, ${short(host.command)}), does not drain it`;
  }
  if (out?.kind === 'socket') return 'no process /proc and ss can see holds its other end';
  return 'no process /proc can see holds its read end';
}

function writeBlocked(block: Block, out: AttachStdio | undefined, i: AttachInput): Finding {
  const { p, ms, proven } = block;
  const a = p.activity;
  const where = out?.target ? ` (${out.target})` : '';
  const reader = readerWords(out, i.host);
  const who = p.depth === 0 ? `pid ${p.pid}` : `pid ${p.pid}, under the server,`;
  const message =
    proven && a.syscall
      ? `${who} (${short(p.command)}) has been blocked in ${describeSyscall(a.syscall)} for ` +
        `≥ ${secs(ms)} (wchan ${a.wchan ?? '?'}), no byte written meanwhile: its stdout${where} ` +
        `is full and ${reader}`
      : `${who} (${short(p.command)}) is likely blocked writing its stdout${where}: asleep in ` +
        `${a.wchan} with no byte written for ≥ ${secs(ms)}, and ${reader}; /proc/${p.pid}/syscall ` +
        'is not readable (no ptrace rights), so the call and its fd cannot be shown';
  return finding('server-write-blocked', message, {
    ...evidenceOf(p, ms),
    pipe: out?.target ?? null,
    reader: out?.peer ? { pid: out.peer.pid, command: out.peer.command } : null,
    proven,
  });
}

function hostNotReading(
  block: Block | null,
  out: AttachStdio | undefined,
  i: AttachInput,
  observed: number,
  hostNow: OneProcess | null,
): Finding | null {
  const host = i.host;
  if (!host || !out?.peer || out.peer.pid !== host.pid) return null;
  const need = needMs(i.budgets.writeBlockedMs, i.watchMs);
  const unread = out.unread;
  const queued = unread !== null && unread.end > 0 && unread.end === unread.start;
  // Bytes waiting unread at the host's end for the whole window: it has not read them.
  if (!block && !(queued && observed >= need)) return null;
  const readIdle = readIdleOf(i.hostSeen);
  const reasons: string[] = [];
  let ms = block?.ms ?? 0;
  if (queued && unread) {
    reasons.push(
      `${bytesWord(unread.end)} wait unread at its end of the socket, unchanged over ${secs(observed)}`,
    );
    ms = Math.max(ms, observed);
  }
  if (readIdle !== null && readIdle >= need) {
    reasons.push(`it has read nothing at all for ${secs(readIdle)} (its rchar did not move)`);
    ms = Math.max(ms, readIdle);
  }
  if (block) reasons.push(`the server's write to it has not moved for ${secs(block.ms)}`);
  const doing = hostNow ? `; the host is ${describeActivity(hostNow.activity, hostCpu(i))}` : '';
  const server = block
    ? block.proven && block.p.activity.syscall
      ? `the server (pid ${block.p.pid}) waits in ${describeSyscall(block.p.activity.syscall)} behind it`
      : `the server (pid ${block.p.pid}) likely waits in a write behind it`
    : out.target !== null && nonBlockingStdout(i)
      ? "the server's stdout is non-blocking: what it still has to send waits in its memory, not in write()"
      : 'the server is not blocked in a write (it may have nothing more to send)';
  const hostState = hostNow?.activity;
  return finding(
    'host-not-reading',
    `the host, pid ${host.pid} (${short(host.command)}), has not read the server's stdout ` +
      `(${out.target}) for ≥ ${secs(ms)}: ${reasons.join('; ')}${doing}. ` +
      `${server.charAt(0).toUpperCase()}${server.slice(1)}`,
    {
      pid: host.pid,
      command: host.command,
      state: hostNow?.state,
      wchan: hostState?.wchan ?? null,
      syscall: hostState?.syscall
        ? { name: hostState.syscall.name, fd: hostState.syscall.fd, bytes: hostState.syscall.bytes }
        : null,
      cpuPercent: hostCpu(i),
      ms: Math.round(ms),
      pipe: out.target,
      unreadBytes: unread?.end ?? null,
      server: block
        ? { pid: block.p.pid, command: block.p.command, syscall: evidenceOf(block.p).syscall }
        : null,
    },
  );
}

function nonBlockingStdout(i: AttachInput): boolean {
  const root = i.snapshots.at(-1)?.processes[0];
  return root?.stdio.find((s) => s.fd === 1)?.nonBlocking === true;
}

/** How long the host has read nothing at all, over the window (null when unknown). */
function readIdleOf(seen: AttachInput['hostSeen']): number | null {
  const last = seen.at(-1);
  if (!last || last.p.readBytes === null) return null;
  let since = last.t;
  for (let k = seen.length - 1; k >= 0 && seen[k].p.readBytes === last.p.readBytes; k -= 1) {
    since = seen[k].t;
  }
  return last.t - since;
}

function hostCpu(i: AttachInput): number | null {
  const a = i.hostSeen[0];
  const z = i.hostSeen.at(-1);
  if (!a || !z || z.t <= a.t || a.p.cpuMs === null || z.p.cpuMs === null) return null;
  return Math.round(((z.p.cpuMs - a.p.cpuMs) / (z.t - a.t)) * 1000) / 10;
}

function subprocessBlocked(
  snaps: readonly ProcessSnapshot[],
  root: ProcessSample,
  i: AttachInput,
): Finding | null {
  const last = snaps.at(-1);
  if (!last) return null;
  const need = needMs(i.budgets.subprocessBlockedMs, i.watchMs);
  const hostEnds = new Set(i.stdio.flatMap((s) => (s.target ? [s.target] : [])));
  const endOf = (p: ProcessSample) => p.stdio.find((x) => x.target === p.activity.fdTarget);
  const child = descendantsOf(last, root).find(
    (p) =>
      p.activity.kind === 'writing' &&
      (p.activity.forMs ?? 0) >= need &&
      /^(pipe|socket):/.test(p.activity.fdTarget ?? '') &&
      // The server's own stdio is the host's pipe: a child blocked on it is the host's block.
      !hostEnds.has(p.activity.fdTarget ?? '') &&
      // A write a reader drains slowly also lasts: its reader (else the server) reads nothing.
      stillFor(snaps, endOf(p)?.peer?.pid ?? root.pid, (q) => q.readBytes) >= need,
  );
  if (!child) return null;
  const a = child.activity;
  const peer = endOf(child)?.peer;
  const reader = peer
    ? peer.pid === root.pid
      ? `whose read end the server (pid ${root.pid}) holds and does not read`
      : `whose read end pid ${peer.pid} (${peer.command.slice(0, 40)}) holds and does not read`
    : 'whose read end no process of the tree can be seen to hold';
  const call = a.syscall ? describeSyscall(a.syscall) : 'write';
  return finding(
    'subprocess-blocked',
    `child ${child.pid} (${short(child.command)}) of the server has been blocked in ${call} for ` +
      `≥ ${secs(a.forMs ?? 0)} on ${a.fdTarget}, ${reader}; the server is ` +
      `${describeActivity(root.activity, root.cpuPercent)} — each waits for the other`,
    {
      ...evidenceOf(child, a.forMs ?? 0),
      pipe: a.fdTarget,
      reader: peer ?? null,
      server: { pid: root.pid, activity: describeActivity(root.activity, root.cpuPercent) },
    },
  );
}

function serverBusy(
  snaps: readonly ProcessSnapshot[],
  root: ProcessSample,
  i: AttachInput,
): Finding | null {
  const last = snaps.at(-1);
  const firstSeen = snaps.find((s) => s.processes.some((p) => p.pid === root.pid));
  const was = firstSeen?.processes.find((p) => p.pid === root.pid);
  if (!last || !firstSeen || !was) return null;
  const span = last.t - firstSeen.t;
  if (span <= 0 || span < needMs(i.budgets.serverBusyMs, i.watchMs)) return null;
  const average = ((root.cpuMs - was.cpuMs) / span) * 100;
  // On a loaded machine a spinning thread gets less than its core: runnable in every sample
  // with half a core on average counts as on CPU too (as a session's rule says).
  const runnable =
    average >= 50 &&
    snaps
      .filter((s) => s.t >= firstSeen.t)
      .every((s) =>
        s.processes.find((p) => p.pid === root.pid)?.threads.some((t) => t.state === 'R'),
      );
  const wrote =
    root.writtenBytes !== null &&
    was.writtenBytes !== null &&
    root.writtenBytes !== was.writtenBytes;
  if (wrote || (average < i.budgets.busyCpuPercent && !runnable)) return null;
  return finding(
    'server-busy',
    `the server (pid ${root.pid}, ${short(root.command)}) was on CPU (${Math.round(average)} % of ` +
      `a core on average${runnable ? ', runnable' : ''}) for the whole ${secs(span)} watched and ` +
      'wrote nothing: a CPU-bound tool (or a loop); nothing else is answered meanwhile, and a ' +
      'cancellation reaches it only if it checks',
    { ...evidenceOf(root, span), cpuPercent: Math.round(average) },
  );
}

/** Bytes the host wrote waiting unread at the server's end of its stdin, the whole window. */
function stdinBlocked(i: AttachInput, observed: number): Finding | null {
  const input = i.stdio.find((s) => s.fd === 0);
  const u = input?.unread;
  if (!input || !u || u.end === 0 || u.end !== u.start) return null;
  if (observed < needMs(i.budgets.stdinWaitMs, i.watchMs)) return null;
  const from = input.peer ? ` from pid ${input.peer.pid} (${short(input.peer.command)})` : '';
  return finding(
    'stdin-blocked',
    `${bytesWord(u.end)}${from} wait unread in the server's stdin (${input.target}), unchanged ` +
      `over ${secs(observed)}: the server is not reading its input (new requests and ` +
      'cancellations cannot reach it)',
    { pipe: input.target, unreadBytes: u.end, ms: Math.round(observed) },
  );
}

/** `unread`: bytes of its stdout the host has not read (host-not-reading), else 0. */
function summaryOf(root: ProcessSample, block: Block | null, i: AttachInput, unread = 0): string {
  const who = `pid ${root.pid} (${short(root.command)})`;
  const a = root.activity;
  if (i.goneAt !== null) return `${who} exited during the watch window`;
  if (block) {
    const reader = i.host ? `the host (pid ${i.host.pid}) is not reading it` : 'nobody reads it';
    return `${who}: blocked writing its stdout: ${reader}`;
  }
  const cpu = Math.round(root.cpuPercent ?? 0);
  if (a.kind === 'reading' && a.tid === root.pid && a.syscall?.fd === 0) {
    return `${who}: idle in ${describeSyscall(a.syscall)}, ${cpu} % CPU: waiting for the host's next request`;
  }
  if (a.kind === 'event-loop' && cpu < IDLE_CPU_PERCENT) {
    const idle = `${who}: idle in its event loop (${a.syscall?.name ?? 'poll'}), ${cpu} % CPU`;
    // Not blocked, yet its output waits: the host is not reading what it already wrote.
    return unread > 0
      ? `${idle}: ${bytesWord(unread)} of its stdout wait unread at the host's end`
      : `${idle}: waiting to read the host's next request`;
  }
  return `${describeProcess(root)}`;
}
