/** The process sampler: how long a call lasts, rates, the cadence. */
import { describe, expect, it, vi } from 'vitest';
import type { ProcessSnapshot } from '../../../shared/process.js';
import {
  inCall,
  make,
  proc,
  ROOT,
  read,
  run,
  thread,
  tree,
  withFakeClock,
  write,
} from '../../../test/fixtures/sampler-harness.js';
import { FAST_MS, ProcessSampler, SLOW_MS } from './sampler.js';
import { type RawTree, unavailableSource } from './source.js';

withFakeClock();

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
