/**
 * ProcessSampler: the server's process tree, sampled while the session runs (DESIGN.md
 * "Process evidence": every 500 ms; every 100 ms while a response is owed and stdout has been
 * quiet for 250 ms).
 *
 * Owns: its timer, the previous sample (for CPU %, bytes written per second and how long each
 * thread has sat in the same call), a cache of who holds the tree's pipes. Fed by: the session
 * (`start(pid)`, `urgent()`, `stop()`), the platform's ProcessSource. Listens: the session,
 * through `onSample`, once per sample.
 */
import type {
  ProcessAvailability,
  ProcessSample,
  ProcessSnapshot,
  StdioEnd,
} from '../../../shared/process.js';
import { activityOf, type TimedThread } from './activity.js';
import type { ProcessSource, RawProcess, RawTree } from './source.js';
import { classOf } from './syscalls.js';

export const SLOW_MS = 500;
export const FAST_MS = 100;
/** The share of one core the sampler may spend (its cadence stretches to stay under it). */
const COST_SHARE = 0.01;
/** How long a pipe's holders are trusted before they are looked up again (ms). */
const HOLDERS_TTL_MS = 2000;

export interface SamplerOptions {
  source: ProcessSource;
  /** The session clock (ms since start). */
  now(): number;
  /** Sample fast now: a response is owed and stdout has been quiet a while. */
  urgent(): boolean;
  onSample(snapshot: ProcessSnapshot): void;
  /** Whether Pipescope spawned the root on its stdio, so that the other ends are its own
   *  (default true: a session's child). `pipescope attach` samples a process some other host
   *  started: false, and its ends are looked up like any other pipe's. */
  ownsRootStdio?: boolean;
  /** The share of one core sampling may cost (default COST_SHARE, 1 %: a session runs for
   *  hours). A one-off watch of a few seconds (attach) affords more, so that its first,
   *  cold sample does not stretch the cadence for the rest of its window. */
  costShare?: number;
}

interface CallSeen {
  key: string;
  since: number;
  bytes: number | null;
}

interface Previous {
  t: number;
  cpuMs: number | null;
  writtenBytes: number | null;
}

/** Rates are taken over at least this long (ms): CPU ticks are 10 ms, so a 100 ms interval
 *  alone reads anywhere from 80 to 120 % for one busy thread. */
const RATE_WINDOW_MS = 400;

export class ProcessSampler {
  private timer: NodeJS.Timeout | null = null;
  private pid: number | null = null;
  private lastAt = Number.NEGATIVE_INFINITY;
  private busy = false;
  /** Per process, its recent samples (oldest first, spanning about RATE_WINDOW_MS). */
  private readonly previous = new Map<string, Previous[]>();
  private readonly calls = new Map<string, CallSeen>();
  private readonly holders = new Map<string, { at: number; peer: StdioEnd['peer'] }>();
  /** The server's stdio as it was at the first sample: Pipescope's ends, by construction. */
  private rootStdio: Map<number, string> | null = null;
  latest: ProcessSnapshot | null = null;
  /** Commands of the tree being sampled (pid → command), for the pipes' holders. */
  private commands = new Map<number, string>();
  samples = 0;
  /** Time spent reading and building samples (the reads are synchronous: their CPU cost). */
  spentMs = 0;
  private lastCostMs = 0;

  constructor(private readonly o: SamplerOptions) {}

  get availability(): ProcessAvailability {
    return this.o.source.availability;
  }

  start(pid: number): void {
    if (!this.o.source.availability.available || this.timer) return;
    this.pid = pid;
    this.timer = setInterval(() => this.tick(), FAST_MS);
    this.timer.unref();
    this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.pid = null;
  }

  private tick(): void {
    if (this.busy || this.pid === null) return;
    const t = this.o.now();
    // The cadence, stretched so that reading costs at most COST_SHARE of a core: a large tree
    // (a browser's) is sampled less often, never at a price (the slack absorbs timer jitter).
    const share = this.o.costShare ?? COST_SHARE;
    const gap = Math.max(this.o.urgent() ? FAST_MS : SLOW_MS, this.lastCostMs / share);
    if (t - this.lastAt < gap - 10) return;
    this.lastAt = t;
    this.busy = true;
    const started = performance.now();
    const spentBefore = this.o.source.spentMs?.() ?? null;
    void this.o.source
      .sample(this.pid)
      .then(async (raw) => {
        if (!raw || this.pid === null) return;
        const builtAt = performance.now();
        const snapshot = await this.build(raw, this.o.now());
        // The reads' own time where the source counts it (its slices wait between them), else
        // the whole wall time; plus building the snapshot.
        const reads =
          spentBefore === null
            ? builtAt - started
            : (this.o.source.spentMs?.() ?? spentBefore) - spentBefore;
        this.lastCostMs = reads + (performance.now() - builtAt);
        this.spentMs += this.lastCostMs;
        this.samples += 1;
        this.latest = snapshot;
        this.o.onSample(snapshot);
      })
      .catch(() => {
        // A process that vanished mid-read gives nulls, not throws; anything else is a bug in
        // a source: never let it reach the session.
      })
      .finally(() => {
        this.busy = false;
      });
  }

  private async build(raw: RawTree, t: number): Promise<ProcessSnapshot> {
    const alive = new Set<string>();
    const processes: ProcessSample[] = [];
    if (this.rootStdio === null) {
      const root = this.o.ownsRootStdio === false ? undefined : raw.processes[0];
      this.rootStdio = new Map(
        (root?.stdio ?? []).flatMap((s) => (s.target ? [[s.fd, s.target] as const] : [])),
      );
    }
    const pids = [...raw.processes.map((p) => p.pid), process.pid];
    this.commands = new Map(raw.processes.map((p) => [p.pid, p.command]));
    for (const p of raw.processes) {
      alive.add(p.identity);
      processes.push(await this.sampleOf(p, t, pids, raw.rootPid));
    }
    // Forget what belongs to processes that are gone (bounded by the tree's size).
    for (const k of this.previous.keys()) if (!alive.has(k)) this.previous.delete(k);
    // ...and to threads that are gone (a thread per request must not grow this for good).
    const threads = new Set(
      raw.processes.flatMap((p) => p.threads.map((th) => `${p.identity}/${th.tid}`)),
    );
    for (const k of this.calls.keys()) if (!threads.has(k)) this.calls.delete(k);
    return { t, rootPid: raw.rootPid, processes, omitted: raw.omitted };
  }

  private async sampleOf(
    p: RawProcess,
    t: number,
    pids: readonly number[],
    rootPid: number,
  ): Promise<ProcessSample> {
    const history = this.previous.get(p.identity) ?? [];
    // The newest sample at least a window old, else the oldest there is.
    while (history.length > 1 && t - history[1].t >= RATE_WINDOW_MS) history.shift();
    const prev = history[0];
    const dt = prev ? t - prev.t : 0;
    let cpuPercent: number | null = p.cpuPercent ?? null;
    if (p.cpuMs !== null && prev && prev.cpuMs !== null && dt > 0) {
      cpuPercent = Math.max(0, ((p.cpuMs - prev.cpuMs) / dt) * 100);
    }
    const writeRate =
      prev && prev.writtenBytes !== null && p.writtenBytes !== null && dt > 0
        ? ((p.writtenBytes - prev.writtenBytes) / dt) * 1000
        : null;
    history.push({ t, cpuMs: p.cpuMs, writtenBytes: p.writtenBytes });
    this.previous.set(p.identity, history);
    const threads: TimedThread[] = p.threads.map((th) => ({
      ...th,
      forMs: this.callDuration(p, th, t),
    }));
    return {
      pid: p.pid,
      ppid: p.ppid,
      command: p.command,
      state: p.state,
      cpuPercent: cpuPercent === null ? null : Math.round(cpuPercent * 10) / 10,
      cpuMs: p.cpuMs ?? 0,
      writtenBytes: p.writtenBytes,
      readBytes: p.readBytes,
      writeRate: writeRate === null ? null : Math.round(writeRate),
      threadCount: p.threadCount,
      threads: p.threads.map(({ tid, state, wchan, syscall }) => ({ tid, state, wchan, syscall })),
      activity: activityOf(p.pid, threads, p.state, cpuPercent),
      stdio: await this.stdioOf(p, t, pids, p.pid === rootPid),
      depth: p.depth,
    };
  }

  /** How long a thread has sat in this same call: same call and arguments, and (for reads and
   *  writes) no bytes moved meanwhile — a loop writing the same buffer again is not one call. */
  private callDuration(
    p: RawProcess,
    th: TimedThread | RawProcess['threads'][number],
    t: number,
  ): number | null {
    const id = `${p.identity}/${th.tid}`;
    if (th.callKey === null || th.syscall === null || th.syscall === 'running') {
      this.calls.delete(id);
      return null;
    }
    const cls = classOf(th.syscall.name);
    const bytes = cls === 'write' ? p.writtenBytes : cls === 'read' ? p.readBytes : null;
    const seen = this.calls.get(id);
    if (seen && seen.key === th.callKey && seen.bytes === bytes) return t - seen.since;
    this.calls.set(id, { key: th.callKey, since: t, bytes });
    return 0;
  }

  private async stdioOf(
    p: RawProcess,
    t: number,
    pids: readonly number[],
    isRoot: boolean,
  ): Promise<StdioEnd[]> {
    const out: StdioEnd[] = [];
    for (const s of p.stdio) {
      let peer: StdioEnd['peer'] = null;
      const rootFd = [...(this.rootStdio ?? [])].find(([, target]) => target === s.target)?.[0];
      if (s.target !== null && rootFd !== undefined) {
        peer = {
          pid: process.pid,
          command: 'pipescope',
          note: isRoot
            ? "Pipescope's end: it spawned the server on this"
            : `the server's ${['stdin', 'stdout', 'stderr'][rootFd]}: Pipescope's end`,
        };
      } else if (s.target?.startsWith('pipe:')) {
        peer = await this.pipePeer(s.target, p.pid, t, pids);
      }
      out.push({ fd: s.fd, target: s.target, nonBlocking: s.nonBlocking, peer });
    }
    return out;
  }

  private async pipePeer(
    target: string,
    self: number,
    t: number,
    pids: readonly number[],
  ): Promise<StdioEnd['peer']> {
    const key = `${self}:${target}`;
    const cached = this.holders.get(key);
    if (cached && t - cached.at < HOLDERS_TTL_MS) return cached.peer;
    const held = (await this.o.source.holders(target, pids)).filter((h) => h.pid !== self);
    const other = held.find((h) => h.mode === 'read') ?? held[0];
    const peer = other
      ? {
          pid: other.pid,
          command: other.pid === process.pid ? 'pipescope' : (this.commandOf(other.pid) ?? ''),
          note: `holds the ${other.mode === 'read' ? 'read end' : `other end (${other.mode})`} as fd ${other.fd}`,
        }
      : null;
    if (this.holders.size > 256) this.holders.clear();
    this.holders.set(key, { at: t, peer });
    return peer;
  }

  /** The command of a process of the tree being sampled now. */
  private commandOf(pid: number): string | null {
    return this.commands.get(pid) ?? null;
  }
}
