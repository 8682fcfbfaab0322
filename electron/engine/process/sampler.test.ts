import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProcessSnapshot, SyscallInfo } from '../../../shared/process.js';
import { FAST_MS, ProcessSampler, SLOW_MS } from './sampler.js';
import {
  type Holder,
  type ProcessSource,
  type RawProcess,
  type RawThread,
  type RawTree,
  unavailableSource,
} from './source.js';

const ROOT = 5000;
const CHILD = 5001;

function write(fd: number, bytes: number): SyscallInfo {
  return { nr: 1, name: 'write', fd, bytes };
}

function read(fd: number, bytes: number): SyscallInfo {
  return { nr: 0, name: 'read', fd, bytes };
}

function thread(tid: number, over: Partial<RawThread> = {}): RawThread {
  return { tid, state: 'S', wchan: null, syscall: null, callKey: null, fdTarget: null, ...over };
}

/** A thread in `call`, with the key /proc would give (the call's number and arguments). */
function inCall(tid: number, call: SyscallInfo, key = `${call.nr} ${call.fd} ${call.bytes}`) {
  return thread(tid, { syscall: call, callKey: key, wchan: 'pipe_write' });
}

function proc(pid: number, over: Partial<RawProcess> = {}): RawProcess {
  return {
    pid,
    ppid: pid === ROOT ? 1 : ROOT,
    command: pid === ROOT ? 'python3 srv.py' : 'sh -c worker',
    state: 'S',
    cpuMs: 0,
    writtenBytes: 0,
    readBytes: 0,
    threadCount: 1,
    threads: [thread(pid)],
    stdio: [],
    depth: pid === ROOT ? 0 : 1,
    identity: `${pid}:1:x`,
    ...over,
  };
}

function tree(...processes: RawProcess[]): RawTree {
  return { rootPid: ROOT, processes, omitted: 0 };
}

interface Harness {
  sampler: ProcessSampler;
  snaps: ProcessSnapshot[];
  sample: ReturnType<typeof vi.fn>;
  holders: ReturnType<typeof vi.fn>;
  setUrgent(u: boolean): void;
}

/** A sampler over a scripted source: the i-th sample is `script(i)` (the last one repeats when
 *  it is a list). The clock is the fake timers' Date.now(). */
function make(
  script: RawTree[] | ((i: number) => RawTree | null),
  held: (target: string, pids: readonly number[]) => Holder[] = () => [],
  ownsRootStdio?: boolean,
): Harness {
  let i = 0;
  let urgent = false;
  const snaps: ProcessSnapshot[] = [];
  const next = (): RawTree | null =>
    typeof script === 'function' ? script(i++) : (script[Math.min(i++, script.length - 1)] ?? null);
  const sample = vi.fn((_pid: number) => Promise.resolve(next()));
  const holders = vi.fn((target: string, pids: readonly number[]) =>
    Promise.resolve(held(target, pids)),
  );
  const source: ProcessSource = { availability: { available: true }, sample, holders };
  const sampler = new ProcessSampler({
    source,
    now: () => Date.now(),
    urgent: () => urgent,
    onSample: (s) => snaps.push(s),
    ownsRootStdio,
  });
  return {
    sampler,
    snaps,
    sample,
    holders,
    setUrgent: (u) => {
      urgent = u;
    },
  };
}

/** Lets `ms` of fake time pass, running the timers and the samples they start. */
async function run(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('ProcessSampler: how long a thread sat in the same call', () => {
  it('grows while the call key and the bytes written stay the same, resets when bytes move or the key changes', async () => {
    const w = inCall(ROOT, write(1, 65_536), 'K1');
    const other = inCall(ROOT, write(1, 4096), 'K2');
    const script = [
      tree(proc(ROOT, { threads: [w], writtenBytes: 100 })), // t=0
      tree(proc(ROOT, { threads: [w], writtenBytes: 100 })), // t=500
      tree(proc(ROOT, { threads: [w], writtenBytes: 100 })), // t=1000
      tree(proc(ROOT, { threads: [w], writtenBytes: 200 })), // t=1500: bytes moved
      tree(proc(ROOT, { threads: [w], writtenBytes: 200 })), // t=2000
      tree(proc(ROOT, { threads: [other], writtenBytes: 200 })), // t=2500: a new call
      tree(proc(ROOT, { threads: [other], writtenBytes: 200 })), // t=3000
    ];
    const h = make(script);
    h.sampler.start(ROOT);
    await run(3000);
    expect(h.snaps.map((s) => s.t)).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000]);
    expect(h.snaps.map((s) => s.processes[0].activity.forMs)).toEqual([
      0, 500, 1000, 0, 500, 0, 500,
    ]);
    expect(h.snaps[2].processes[0].activity).toMatchObject({
      kind: 'writing',
      syscall: { name: 'write', fd: 1, bytes: 65_536 },
    });
    h.sampler.stop();
  });

  it('a read resets when bytes read move (not bytes written)', async () => {
    const r = inCall(ROOT, read(0, 8192), 'R0');
    const script = [
      tree(proc(ROOT, { threads: [r], readBytes: 10, writtenBytes: 0 })),
      tree(proc(ROOT, { threads: [r], readBytes: 10, writtenBytes: 50 })),
      tree(proc(ROOT, { threads: [r], readBytes: 20, writtenBytes: 50 })),
    ];
    const h = make(script);
    h.sampler.start(ROOT);
    await run(1000);
    expect(h.snaps.map((s) => s.processes[0].activity.forMs)).toEqual([0, 500, 0]);
    h.sampler.stop();
  });

  it('is null when not in a call, and starts over after one', async () => {
    const w = inCall(ROOT, write(1, 10), 'K');
    const script = [
      tree(proc(ROOT, { threads: [w] })),
      tree(proc(ROOT, { threads: [w] })),
      tree(proc(ROOT, { threads: [thread(ROOT, { state: 'R', syscall: 'running' })] })),
      tree(proc(ROOT, { threads: [w] })),
    ];
    const h = make(script);
    h.sampler.start(ROOT);
    await run(1500);
    expect(h.snaps.map((s) => s.processes[0].activity.forMs)).toEqual([0, 500, null, 0]);
    h.sampler.stop();
  });

  it('a reused pid (another identity) is not the same call', async () => {
    const w = inCall(ROOT, write(1, 10), 'K');
    const script = [
      tree(proc(ROOT, { threads: [w] })),
      tree(proc(ROOT, { threads: [w], identity: `${ROOT}:2:other` })),
    ];
    const h = make(script);
    h.sampler.start(ROOT);
    await run(500);
    expect(h.snaps.map((s) => s.processes[0].activity.forMs)).toEqual([0, 0]);
    h.sampler.stop();
  });
});

describe('ProcessSampler: rates', () => {
  it('CPU % from CPU time deltas (null on the first sample); bytes written per second', async () => {
    const script = [
      tree(proc(ROOT, { cpuMs: 1000, writtenBytes: 0 })),
      tree(proc(ROOT, { cpuMs: 1250, writtenBytes: 1000 })),
      tree(proc(ROOT, { cpuMs: 1750, writtenBytes: 1000 })),
    ];
    const h = make(script);
    h.sampler.start(ROOT);
    await run(1000);
    const p = h.snaps.map((s) => s.processes[0]);
    expect(p.map((x) => x.cpuPercent)).toEqual([null, 50, 100]);
    expect(p.map((x) => x.writeRate)).toEqual([null, 2000, 0]);
    expect(p.map((x) => x.cpuMs)).toEqual([1000, 1250, 1750]);
    h.sampler.stop();
  });

  it('at the urgent cadence, CPU % is taken over a window of at least 400 ms', async () => {
    // One busy thread whose 10 ms ticks land unevenly across 100 ms samples.
    const cpu = [0, 90, 210, 300, 390, 510, 600];
    const h = make((i) => tree(proc(ROOT, { cpuMs: cpu[Math.min(i, cpu.length - 1)] })));
    h.setUrgent(true);
    h.sampler.start(ROOT);
    await run(600);
    expect(h.snaps.map((s) => s.t)).toEqual([0, 100, 200, 300, 400, 500, 600]);
    // t=500 over 100..500: (510 - 90) / 400; t=600 over 200..600: (600 - 210) / 400.
    expect(h.snaps[5].processes[0].cpuPercent).toBe(105);
    expect(h.snaps[6].processes[0].cpuPercent).toBe(97.5);
    h.sampler.stop();
  });

  it('takes the system CPU % where there are no CPU times (macOS ps)', async () => {
    const h = make([tree(proc(ROOT, { cpuMs: null, cpuPercent: 97.3, writtenBytes: null }))]);
    h.sampler.start(ROOT);
    await run(0);
    expect(h.snaps[0].processes[0]).toMatchObject({
      cpuPercent: 97.3,
      cpuMs: 0,
      writeRate: null,
      activity: { kind: 'running' },
    });
    h.sampler.stop();
  });
});

describe('ProcessSampler: cadence', () => {
  it('samples every 500 ms, every 100 ms while urgent, and slow again after', async () => {
    const h = make([tree(proc(ROOT))]);
    h.sampler.start(ROOT);
    expect(SLOW_MS).toBe(500);
    expect(FAST_MS).toBe(100);
    await run(1000);
    expect(h.snaps.map((s) => s.t)).toEqual([0, 500, 1000]);
    h.setUrgent(true);
    await run(500);
    expect(h.snaps.map((s) => s.t)).toEqual([0, 500, 1000, 1100, 1200, 1300, 1400, 1500]);
    h.setUrgent(false);
    await run(900);
    expect(h.snaps.map((s) => s.t).slice(8)).toEqual([2000]);
    expect(h.sampler.samples).toBe(9);
    expect(h.sampler.latest).toBe(h.snaps[8]);
    h.sampler.stop();
  });

  it('does not start a sample while one is still being read; a slow one stretches the cadence', async () => {
    let release: (t: RawTree) => void = () => {};
    const sample = vi.fn(
      () =>
        new Promise<RawTree | null>((resolve) => {
          release = resolve;
        }),
    );
    const snaps: ProcessSnapshot[] = [];
    const sampler = new ProcessSampler({
      source: { availability: { available: true }, sample, holders: () => Promise.resolve([]) },
      now: () => Date.now(),
      urgent: () => true,
      onSample: (s) => snaps.push(s),
    });
    sampler.start(ROOT);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sample).toHaveBeenCalledTimes(1);
    release(tree(proc(ROOT)));
    await vi.advanceTimersByTimeAsync(100);
    expect(snaps).toHaveLength(1);
    // That sample cost a second (this source does not count its reads: its wall time is the
    // cost): the cadence stretches to keep the sampler at 1 % of a core, 100 s.
    expect(sample).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(98_000);
    expect(sample).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(sample).toHaveBeenCalledTimes(2);
    sampler.stop();
  });

  it('a larger costShare (a one-off watch) stretches the cadence less', async () => {
    let release: (t: RawTree) => void = () => {};
    const sample = vi.fn(
      () =>
        new Promise<RawTree | null>((resolve) => {
          release = resolve;
        }),
    );
    const sampler = new ProcessSampler({
      source: { availability: { available: true }, sample, holders: () => Promise.resolve([]) },
      now: () => Date.now(),
      urgent: () => true,
      onSample: () => {},
      costShare: 0.5,
    });
    sampler.start(ROOT);
    await vi.advanceTimersByTimeAsync(1000);
    release(tree(proc(ROOT)));
    await vi.advanceTimersByTimeAsync(100);
    // A sample that cost a second at half a core: the next one 2 s after it began, not 100 s.
    await vi.advanceTimersByTimeAsync(800);
    expect(sample).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(sample).toHaveBeenCalledTimes(2);
    sampler.stop();
  });

  it('stop() stops sampling, and a sample in flight at the stop is dropped', async () => {
    let release: (t: RawTree) => void = () => {};
    const sample = vi.fn(
      () =>
        new Promise<RawTree | null>((resolve) => {
          release = resolve;
        }),
    );
    const onSample = vi.fn();
    const sampler = new ProcessSampler({
      source: { availability: { available: true }, sample, holders: () => Promise.resolve([]) },
      now: () => Date.now(),
      urgent: () => false,
      onSample,
    });
    sampler.start(ROOT);
    expect(sample).toHaveBeenCalledWith(ROOT);
    sampler.stop();
    release(tree(proc(ROOT)));
    await vi.advanceTimersByTimeAsync(2000);
    expect(sample).toHaveBeenCalledTimes(1);
    expect(onSample).not.toHaveBeenCalled();
    expect(sampler.latest).toBeNull();
  });

  it('a root that is gone (null) gives no snapshot', async () => {
    const h = make([tree(proc(ROOT)), null as unknown as RawTree]);
    h.sampler.start(ROOT);
    await run(1000);
    expect(h.sample).toHaveBeenCalledTimes(3);
    expect(h.snaps).toHaveLength(1);
    h.sampler.stop();
  });

  it('an unavailable source never samples', async () => {
    const source = unavailableSource('not here');
    const spy = vi.spyOn(source, 'sample');
    const onSample = vi.fn();
    const sampler = new ProcessSampler({
      source,
      now: () => Date.now(),
      urgent: () => true,
      onSample,
    });
    sampler.start(ROOT);
    await vi.advanceTimersByTimeAsync(2000);
    expect(spy).not.toHaveBeenCalled();
    expect(onSample).not.toHaveBeenCalled();
    expect(sampler.availability).toEqual({ available: false, reason: 'not here' });
    expect(sampler.samples).toBe(0);
  });
});

describe('ProcessSampler: stdio peers', () => {
  const rootStdio = [
    { fd: 0 as const, target: 'pipe:[10]', nonBlocking: false },
    { fd: 1 as const, target: 'pipe:[11]', nonBlocking: true },
    { fd: 2 as const, target: 'pipe:[12]', nonBlocking: false },
  ];

  it("names the root's stdio at the first sample as Pipescope's end", async () => {
    const h = make([tree(proc(ROOT, { stdio: rootStdio }))]);
    h.sampler.start(ROOT);
    await run(0);
    const stdio = h.snaps[0].processes[0].stdio;
    expect(stdio).toHaveLength(3);
    for (const s of stdio) {
      expect(s.peer).toEqual({
        pid: process.pid,
        command: 'pipescope',
        note: "Pipescope's end: it spawned the server on this",
      });
    }
    expect(stdio[1]).toMatchObject({ fd: 1, target: 'pipe:[11]', nonBlocking: true });
    expect(h.holders).not.toHaveBeenCalled();
    h.sampler.stop();
  });

  it("a root some other host started (attach): its ends are looked up, never called Pipescope's", async () => {
    const held = (target: string): Holder[] =>
      target === 'pipe:[11]' ? [{ pid: 4242, fd: 9, mode: 'read' }] : [];
    const h = make([tree(proc(ROOT, { stdio: rootStdio }))], held, false);
    h.sampler.start(ROOT);
    await run(0);
    const [, out, err] = h.snaps[0].processes[0].stdio;
    expect(out.peer).toMatchObject({ pid: 4242, note: 'holds the read end as fd 9' });
    expect(err.peer).toBeNull();
    expect(h.holders).toHaveBeenCalledTimes(3);
    h.sampler.stop();
  });

  it("a child sharing the server's stdout names it as the server's stdout", async () => {
    const child = proc(CHILD, {
      stdio: [
        { fd: 0, target: '/dev/null', nonBlocking: false },
        { fd: 1, target: 'pipe:[11]', nonBlocking: false },
        { fd: 2, target: 'pipe:[12]', nonBlocking: false },
      ],
    });
    const h = make([tree(proc(ROOT, { stdio: rootStdio }), child)]);
    h.sampler.start(ROOT);
    await run(0);
    const [devnull, out, err] = h.snaps[0].processes[1].stdio;
    expect(devnull.peer).toBeNull();
    expect(out.peer).toEqual({
      pid: process.pid,
      command: 'pipescope',
      note: "the server's stdout: Pipescope's end",
    });
    expect(err.peer?.note).toBe("the server's stderr: Pipescope's end");
    h.sampler.stop();
  });

  it("a child's own pipe asks holders() and names the read end's pid", async () => {
    const child = proc(CHILD, {
      threads: [inCall(CHILD, write(1, 65_536), 'W')],
      stdio: [{ fd: 1, target: 'pipe:[99]', nonBlocking: false }],
    });
    const script = [tree(proc(ROOT, { stdio: rootStdio }), child)];
    const h = make(script, (target) =>
      target === 'pipe:[99]'
        ? [
            { pid: CHILD, fd: 1, mode: 'write' },
            { pid: ROOT, fd: 5, mode: 'read' },
          ]
        : [],
    );
    h.sampler.start(ROOT);
    await run(2500);
    expect(h.holders).toHaveBeenCalledWith('pipe:[99]', [ROOT, CHILD, process.pid]);
    const last = h.snaps.at(-1);
    expect(last?.processes[1].stdio[0].peer).toEqual({
      pid: ROOT,
      command: 'python3 srv.py',
      note: 'holds the read end as fd 5',
    });
    // Named from the first sample on (the holder's command is the tree's being sampled).
    expect(h.snaps[0]?.processes[1].stdio[0].peer?.command).toBe('python3 srv.py');
    // Cached for 2 s: looked up at t=0 and again at t=2000, not at every sample.
    expect(h.snaps).toHaveLength(6);
    expect(h.holders).toHaveBeenCalledTimes(2);
    h.sampler.stop();
  });

  it('names the other end by its mode when no holder reads it, and null when nobody holds it', async () => {
    const child = proc(CHILD, {
      stdio: [
        { fd: 0, target: 'pipe:[50]', nonBlocking: false },
        { fd: 1, target: 'pipe:[51]', nonBlocking: false },
      ],
    });
    const h = make([tree(proc(ROOT, { stdio: rootStdio }), child)], (target) =>
      target === 'pipe:[50]' ? [{ pid: process.pid, fd: 9, mode: 'read-write' }] : [],
    );
    h.sampler.start(ROOT);
    await run(0);
    const [inEnd, outEnd] = h.snaps[0].processes[1].stdio;
    expect(inEnd.peer).toEqual({
      pid: process.pid,
      command: 'pipescope',
      note: 'holds the other end (read-write) as fd 9',
    });
    expect(outEnd.peer).toBeNull();
    h.sampler.stop();
  });
});

describe('ProcessSampler: the snapshot', () => {
  it('keeps the tree order, depth, omitted count and thread states', async () => {
    const root = proc(ROOT, {
      threadCount: 40,
      threads: [
        thread(ROOT, { wchan: 'ep_poll' }),
        thread(ROOT + 1, { state: 'R', syscall: 'running' }),
      ],
    });
    const h = make([{ rootPid: ROOT, processes: [root, proc(CHILD)], omitted: 3 }]);
    h.sampler.start(ROOT);
    await run(0);
    const s = h.snaps[0];
    expect(s).toMatchObject({ t: 0, rootPid: ROOT, omitted: 3 });
    expect(s.processes.map((p) => [p.pid, p.ppid, p.depth])).toEqual([
      [ROOT, 1, 0],
      [CHILD, ROOT, 1],
    ]);
    expect(s.processes[0].threadCount).toBe(40);
    expect(s.processes[0].threads).toEqual([
      { tid: ROOT, state: 'S', wchan: 'ep_poll', syscall: null },
      { tid: ROOT + 1, state: 'R', wchan: null, syscall: 'running' },
    ]);
    h.sampler.stop();
  });
});
