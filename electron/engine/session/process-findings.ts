/**
 * What the server's process tree says about a silent pipe, as findings (DESIGN.md "Process
 * evidence" and the finding table): `subprocess-blocked`, `server-busy`, the live signature of
 * `server-output-buffered`, and the proof attached to `server-write-blocked`.
 *
 * Owns: the episode of each rule and when the server started being busy. Fed by: the session's
 * tick (the pipe's state) with the sampler's latest snapshot. Raises into: the session's
 * FindingsEngine. Every message states what was seen — pid, command, state, the call with its
 * fd and bytes, for how long — and says "likely" where it infers.
 */
import type { FindingCode } from '../../../shared/findings.js';
import type { FindingEvidence, ProcessSample, ProcessSnapshot } from '../../../shared/process.js';
import {
  bytesWord,
  describeActivity,
  describeProcess,
  describeSyscall,
} from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import type { Budgets } from '../../../shared/session-options.js';
import type { FindingsEngine } from './findings-engine.js';
import type { TickState, WriteProof } from './tick-state.js';

/** CPU % below which a server counts as idle. */
const IDLE_CPU_PERCENT = 5;
/** A sample older than this says nothing about now (ms). */
const STALE_MS = 1500;

export function evidenceOf(p: ProcessSample, ms?: number): FindingEvidence {
  const a = p.activity;
  return {
    pid: p.pid,
    command: p.command,
    state: p.state,
    wchan: a.wchan,
    syscall: a.syscall ? { name: a.syscall.name, fd: a.syscall.fd, bytes: a.syscall.bytes } : null,
    cpuPercent: p.cpuPercent,
    ...(ms === undefined ? {} : { ms: Math.round(ms) }),
  };
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The server's own stdout write, in words and as evidence, when its process shows one. */
export function writeProofOf(snap: ProcessSnapshot | null, s: TickState): WriteProof | null {
  const root = snap?.processes[0];
  if (!root || !snap || s.t - snap.t > STALE_MS) return null;
  const a = root.activity;
  const reader = s.tapped
    ? s.readingStdout
      ? 'the tap reads, and the host takes what it relays, but the pipe stays full'
      : 'the tap stopped reading it because the host is not taking what it relays'
    : s.readingStdout
      ? `the reader reads (${s.readerMode}) but the pipe stays full`
      : `the reader is not reading (${s.readerMode})`;
  if (a.kind === 'writing' && a.syscall?.fd === 1) {
    const held = a.forMs ?? 0;
    return {
      text: `pid ${root.pid} is blocked in ${describeSyscall(a.syscall)} for ${secs(held)} (wchan ${a.wchan ?? '?'}): the pipe is full; ${reader}`,
      blockedMs: held,
      at: snap.t,
      evidence: evidenceOf(root, held),
    };
  }
  const out = root.stdio.find((x) => x.fd === 1);
  if (a.kind === 'event-loop' && out?.nonBlocking && (root.writeRate ?? 0) === 0) {
    const written =
      root.writtenBytes === null ? '' : ` after ${bytesWord(root.writtenBytes)} written`;
    return {
      text: `pid ${root.pid} is idle in its event loop and writes nothing${written}; its stdout is non-blocking, so what the pipe does not take waits in its memory, not in write(); ${reader}`,
      blockedMs: 0,
      at: snap.t,
      evidence: evidenceOf(root),
    };
  }
  return null;
}

/**
 * The process that is the server: the root, or behind wrappers (`sh -c`, npx, `uv run`) the one
 * process under it that holds the same stdout while the wrapper only waits (a wrapper's own
 * activity says nothing about the server's).
 */
export function serverOf(snap: ProcessSnapshot): ProcessSample | undefined {
  let cur = snap.processes[0];
  const out = cur?.stdio.find((x) => x.fd === 1)?.target;
  if (!cur || !out) return cur;
  for (let hops = 0; hops < 4; hops += 1) {
    const parent: ProcessSample = cur;
    const heirs = snap.processes.filter(
      (p) =>
        p.ppid === parent.pid && p.state !== 'Z' && p.stdio.find((x) => x.fd === 1)?.target === out,
    );
    const waits = ['waiting-child', 'event-loop', 'sleeping'].includes(parent.activity.kind);
    if (heirs.length !== 1 || !waits || (parent.cpuPercent ?? 0) >= IDLE_CPU_PERCENT) break;
    cur = heirs[0];
  }
  return cur;
}

/** The live processes under `p` in a sample. */
export function descendantsOf(snap: ProcessSnapshot, p: ProcessSample): ProcessSample[] {
  const out: ProcessSample[] = [];
  const parents = new Set([p.pid]);
  for (const q of snap.processes) {
    if (parents.has(q.ppid) && q.pid !== p.pid) {
      parents.add(q.pid);
      if (q.state !== 'Z') out.push(q);
    }
  }
  return out;
}

/** The main thread blocked reading stdin: a server waiting for its next request. */
function readingStdin(p: ProcessSample): boolean {
  const a = p.activity;
  return a.kind === 'reading' && a.tid === p.pid && a.syscall?.fd === 0;
}

export interface ProcessRuleInput {
  tick: TickState;
  /** Requests still owed an answer, oldest first. */
  owed: readonly RequestRecord[];
  snapshot: ProcessSnapshot | null;
}

export class ProcessFindings {
  private readonly active = new Set<FindingCode>();
  /** When the server was first seen on CPU in this episode, and its CPU time then. */
  private busySince: { t: number; cpuMs: number } | null = null;
  /** The last time the server was seen working on CPU for a while (the end signatures ask). */
  lastBusyAt: number | null = null;
  /** Whether the newest fresh sample showed the server waiting on stdin, and when it last did
   *  (null: no sample yet). The end signatures ask. */
  stdinWait: { now: boolean; lastAt: number | null } | null = null;
  /** Per pid, its bytes read and since when they have not moved (is a pipe's reader draining?). */
  private readonly reads = new Map<number, { bytes: number | null; since: number }>();

  constructor(
    private readonly budgets: Budgets,
    private readonly findings: FindingsEngine,
  ) {}

  /** `rule` is also the finding's code: each rule raises one code. */
  private episode(rule: FindingCode, holds: boolean, t: number, raise: () => void): void {
    if (!holds) {
      if (this.active.delete(rule)) this.findings.setActive(rule, false, t);
      return;
    }
    if (this.active.has(rule)) return;
    this.active.add(rule);
    this.findings.opening(rule, raise);
  }

  evaluate({ tick: s, owed, snapshot }: ProcessRuleInput): void {
    const snap = snapshot !== null && s.t - snapshot.t <= STALE_MS ? snapshot : null;
    const root = snap ? serverOf(snap) : undefined;
    const live = s.alive && !s.stdoutEnded;
    // No fresh sample says nothing either way: every episode stays as it is.
    if (!snap || !root) return;
    this.noteReads(snap);
    const waiting = readingStdin(root);
    this.stdinWait = { now: waiting, lastAt: waiting ? snap.t : (this.stdinWait?.lastAt ?? null) };
    if (!live || owed.length === 0) {
      // Nothing owed any more (answered, timed out): the conditions behind the findings ended.
      for (const rule of this.active) this.findings.setActive(rule, false, s.t);
      this.active.clear();
      this.busySince = null;
      return;
    }
    const oldest = owed[0];
    const quietFor = s.lastStdoutByteAt === null ? s.t - oldest.sentAt : s.t - s.lastStdoutByteAt;
    const owedFor = s.t - oldest.sentAt;
    const what = `request ${String(oldest.id)} (${oldest.method}) owed for ${secs(owedFor)}`;
    this.subprocessRule(snap, root, what, s.t);
    this.busyRule(root, what, quietFor, s.t);
    this.bufferedRule(snap, root, s, what, Math.min(quietFor, owedFor));
  }

  private noteReads(snap: ProcessSnapshot): void {
    const seen = new Set<number>();
    for (const p of snap.processes) {
      seen.add(p.pid);
      const bytes = p.readBytes ?? null;
      const was = this.reads.get(p.pid);
      if (!was || was.bytes !== bytes) this.reads.set(p.pid, { bytes, since: snap.t });
    }
    for (const pid of this.reads.keys()) if (!seen.has(pid)) this.reads.delete(pid);
  }

  /** How long `pid` has read nothing (ms); unknown bytes (no io file) cannot veto: Infinity. */
  private readIdleFor(pid: number, t: number): number {
    const r = this.reads.get(pid);
    return r && r.bytes !== null ? t - r.since : Number.POSITIVE_INFINITY;
  }

  private subprocessRule(
    snap: ProcessSnapshot,
    root: ProcessSample,
    what: string,
    t: number,
  ): void {
    const b = this.budgets;
    const child = descendantsOf(snap, root).find(
      (p) =>
        p.activity.kind === 'writing' &&
        (p.activity.forMs ?? 0) >= b.subprocessBlockedMs &&
        /^(pipe|socket):/.test(p.activity.fdTarget ?? '') &&
        // Writing to the server's own stdout (Pipescope's end) is the host's pipe, not a child's.
        p.stdio.find((x) => x.target === p.activity.fdTarget)?.peer?.pid !== process.pid &&
        // A write that a reader is draining slowly also lasts (wchar moves only when it returns):
        // the pipe's reader — or, where /proc cannot name it, the server — has read nothing.
        this.readIdleFor(
          p.stdio.find((x) => x.target === p.activity.fdTarget)?.peer?.pid ?? root.pid,
          t,
        ) >= b.subprocessBlockedMs,
    );
    this.episode('subprocess-blocked', child !== undefined, t, () => {
      if (!child) return;
      const a = child.activity;
      const end = child.stdio.find((x) => x.target === a.fdTarget);
      const reader = end?.peer
        ? end.peer.pid === root.pid
          ? `whose read end the server (pid ${root.pid}) holds and does not read`
          : `whose read end pid ${end.peer.pid} (${end.peer.command.slice(0, 40)}) holds and does not read`
        : a.fdTarget?.startsWith('socket:')
          ? 'a socket whose other end /proc cannot name (likely its parent: Node gives a child a socket pair for each pipe)'
          : 'whose read end no process of the tree holds';
      const call = a.syscall ? describeSyscall(a.syscall) : 'write';
      this.findings.raise(
        'subprocess-blocked',
        `${what}: child ${child.pid} (${child.command.slice(0, 60)}) has been blocked in ${call} ` +
          `for ${secs(a.forMs ?? 0)} on ${a.fdTarget}, ${reader}; the server is ` +
          `${describeActivity(root.activity, root.cpuPercent)} — each waits for the other`,
        t,
        undefined,
        {
          ...evidenceOf(child, a.forMs ?? 0),
          pipe: a.fdTarget,
          reader: end?.peer ?? null,
          server: { pid: root.pid, activity: describeActivity(root.activity, root.cpuPercent) },
        },
      );
    });
  }

  private busyRule(root: ProcessSample, what: string, quietFor: number, t: number): void {
    const b = this.budgets;
    const cpu = root.cpuPercent ?? 0;
    // On a loaded machine a spinning thread stays runnable but gets less than its core: a
    // thread in state R with at least half a core counts as on CPU too.
    const runnable = root.threads.some((x) => x.state === 'R') && cpu >= 50;
    const onCpu = cpu >= b.busyCpuPercent || runnable;
    if (!onCpu) this.busySince = null;
    else this.busySince ??= { t, cpuMs: root.cpuMs };
    const since = this.busySince;
    const busyFor = since === null ? 0 : t - since.t;
    // Working, not a blip (a start-up's CPU lingers in the rate's window for a sample or two).
    if (busyFor >= b.serverBusyMs / 2) this.lastBusyAt = t;
    // Over the whole episode, the CPU the server had (the threshold is checked on average).
    const average = since && busyFor > 0 ? ((root.cpuMs - since.cpuMs) / busyFor) * 100 : cpu;
    const holds =
      onCpu &&
      Math.min(busyFor, quietFor) >= b.serverBusyMs &&
      (average >= b.busyCpuPercent || runnable);
    this.episode('server-busy', holds, t, () =>
      this.findings.raise(
        'server-busy',
        `${what}: the server (pid ${root.pid}, ${root.command.slice(0, 60)}) has been on CPU ` +
          `(${Math.round(average)} % of a core on average${runnable ? ', runnable' : ''}) for ` +
          `${secs(busyFor)} with no output for ${secs(quietFor)}: ${busyWhy(root, what)}`,
        t,
        undefined,
        { ...evidenceOf(root, busyFor), cpuPercent: Math.round(average) },
      ),
    );
  }

  private bufferedRule(
    snap: ProcessSnapshot,
    root: ProcessSample,
    s: TickState,
    what: string,
    silentFor: number,
  ): void {
    const b = this.budgets;
    const a = root.activity;
    const others = descendantsOf(snap, root);
    // Threads other than the main one must be parked (futex): one asleep in a timer or waiting
    // on a socket is a tool still at work, whatever the main thread waits for.
    const helpersParked = root.threads.every(
      (t) =>
        t.tid === root.pid ||
        (t.state !== 'R' &&
          (t.syscall === null || (t.syscall !== 'running' && t.syscall.name === 'futex'))),
    );
    const idle =
      helpersParked &&
      s.readingStdout &&
      a.kind === 'reading' &&
      a.tid === root.pid &&
      a.syscall?.fd === 0 &&
      (a.forMs ?? 0) >= b.outputBufferedMs &&
      silentFor >= b.outputBufferedMs &&
      (root.cpuPercent ?? 100) < IDLE_CPU_PERCENT &&
      !root.threads.some((t) => t.state === 'R') &&
      others.length === 0;
    this.episode('server-output-buffered', idle, s.t, () =>
      this.findings.raise(
        'server-output-buffered',
        `${what} and stdout silent for ${secs(silentFor)}, but the server is idle: pid ` +
          `${root.pid} (${root.command.slice(0, 60)}) has sat in ` +
          `${a.syscall ? describeSyscall(a.syscall) : 'read(0)'} for ${secs(a.forMs ?? 0)} ` +
          `waiting for its next request, ${Math.round(root.cpuPercent ?? 0)} % CPU, no children — it likely ` +
          'wrote its answer into a block-buffered stdout that is never flushed (Python without ' +
          '-u or flush=True, C stdio on a pipe)',
        s.t,
        undefined,
        evidenceOf(root, a.forMs ?? 0),
      ),
    );
  }
}

/** What a busy server's CPU means, by what it owes and which thread burns it. */
function busyWhy(p: ProcessSample, what: string): string {
  if (what.includes('(initialize)')) return 'a slow start-up; nothing is answered meanwhile';
  const main = p.threads.find((t) => t.tid === p.pid);
  if (main && main.state !== 'R') return 'its other threads are busy; its main thread is free';
  return 'a CPU-bound tool; a cancellation reaches it only if it checks';
}

/** The process line of a timeout's forensics: the server and whatever under it is telling. */
export function processLine(snap: ProcessSnapshot | null, t: number): string | null {
  if (!snap || t - snap.t > STALE_MS) return null;
  const [root, ...rest] = snap.processes;
  if (!root) return null;
  const notable = rest.filter(
    (p) => p.activity.kind === 'writing' || p.activity.kind === 'running',
  );
  const parts = [
    `server ${describeProcess(root)}`,
    ...notable.slice(0, 3).map((p) => `child ${describeProcess(p)}`),
  ];
  const more = rest.length - Math.min(3, notable.length);
  return `${parts.join('; ')}${more > 0 ? `; ${more} more process${more === 1 ? '' : 'es'} in its tree` : ''}`;
}
