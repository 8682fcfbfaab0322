import { describe, expect, it } from 'vitest';
import type { ProcessSample } from '../../../shared/process.js';
import {
  activity,
  bufferedRoot,
  CHILD,
  EPOLL,
  make,
  owed,
  proc,
  READ0,
  ROOT,
  snap,
  tick,
} from '../../../test/fixtures/process-rules.js';
import type { ProcessFindings } from './process-findings.js';
import type { TickState } from './tick-state.js';

/* ---------------------------------------------------------------- server-output-buffered */

describe('ProcessFindings: server-output-buffered (live)', () => {
  // Request 7 sent at 1000, stdout's last byte before it; now t = 4000: owed and silent 3 s.
  const T = 4000;
  const base = { tick: tick(T, { lastStdoutByteAt: 900 }), owed: [owed(1000)] };

  it('fires when the main thread sits in read(0) past the budget, idle, alone, the host reading', () => {
    const h = make();
    h.rules.evaluate({ ...base, snapshot: snap(T - 100, bufferedRoot()) });
    const f = h.find('server-output-buffered');
    expect(f?.level).toBe('error');
    expect(f?.message).toContain(
      'request 7 (tools/call) owed for 3.0 s and stdout silent for 3.0 s',
    );
    expect(f?.message).toContain('pid 5000 (python3 srv.py) has sat in read(0, 8,192 B) for 2.5 s');
    expect(f?.message).toContain('likely');
    expect(f?.evidence).toEqual({
      pid: ROOT,
      command: 'python3 srv.py',
      state: 'S',
      wchan: 'pipe_read',
      syscall: { name: 'read', fd: 0, bytes: 8192 },
      cpuPercent: 0.5,
      ms: 2500,
    });
    expect(f?.firstAt).toBe(T);
  });

  it('is one finding per episode, counted again after the episode ends', () => {
    const h = make();
    const snapshot = snap(T, bufferedRoot());
    h.rules.evaluate({ ...base, snapshot });
    h.rules.evaluate({ ...base, tick: tick(T + 100, { lastStdoutByteAt: 900 }), snapshot });
    expect(h.find('server-output-buffered')?.count).toBe(1);
    h.rules.evaluate({ ...base, owed: [], snapshot });
    h.rules.evaluate({ ...base, snapshot });
    expect(h.find('server-output-buffered')?.count).toBe(2);
    // Raised active, marked inactive when nothing was owed, raised active again.
    expect(h.seen.map((f) => [f.count, f.active])).toEqual([
      [1, true],
      [1, false],
      [2, true],
    ]);
  });

  it('the finding goes inactive when its condition stops holding (a near-miss after it fired)', () => {
    const h = make();
    h.rules.evaluate({ ...base, snapshot: snap(T, bufferedRoot()) });
    expect(h.find('server-output-buffered')?.active).toBe(true);
    h.rules.evaluate({
      ...base,
      tick: tick(T + 100, { lastStdoutByteAt: 900 }),
      snapshot: snap(T + 100, bufferedRoot({ cpuPercent: 40 })),
    });
    expect(h.find('server-output-buffered')).toMatchObject({ active: false, count: 1 });
  });

  it('no fresh sample says nothing either way: the episode stays as it is', () => {
    const h = make();
    h.rules.evaluate({ ...base, snapshot: snap(T, bufferedRoot()) });
    // Stale, then missing: neither ends the episode nor marks the finding inactive…
    h.rules.evaluate({
      ...base,
      tick: tick(T + 2000, { lastStdoutByteAt: 900 }),
      snapshot: snap(T, bufferedRoot()),
    });
    h.rules.evaluate({ ...base, tick: tick(T + 2100, { lastStdoutByteAt: 900 }), snapshot: null });
    expect(h.find('server-output-buffered')?.active).toBe(true);
    // …so a fresh sample still in the condition is the same episode, not a new one.
    h.rules.evaluate({
      ...base,
      tick: tick(T + 2200, { lastStdoutByteAt: 900 }),
      snapshot: snap(T + 2200, bufferedRoot()),
    });
    expect(h.find('server-output-buffered')?.count).toBe(1);
    expect(h.seen).toHaveLength(1);
  });

  it('still fires with a zombie child (exited, not reaped: not working)', () => {
    const h = make();
    const zombie = proc({ pid: CHILD, state: 'Z', activity: activity('zombie', { tid: CHILD }) });
    h.rules.evaluate({ ...base, snapshot: snap(T, bufferedRoot(), zombie) });
    expect(h.codes()).toEqual(['server-output-buffered']);
  });

  const misses: [string, () => Parameters<ProcessFindings['evaluate']>[0]][] = [
    [
      'in read(0) just under the budget',
      () => ({ ...base, snapshot: snap(T, bufferedRoot({}, { forMs: 1999 })) }),
    ],
    [
      'stdout spoke recently',
      () => ({
        ...base,
        tick: tick(T, { lastStdoutByteAt: 2500 }),
        snapshot: snap(T, bufferedRoot()),
      }),
    ],
    [
      'the request is recent',
      () => ({ ...base, owed: [owed(2500)], snapshot: snap(T, bufferedRoot()) }),
    ],
    ['CPU at 5 %', () => ({ ...base, snapshot: snap(T, bufferedRoot({ cpuPercent: 5 })) })],
    [
      'CPU unknown (first sample)',
      () => ({ ...base, snapshot: snap(T, bufferedRoot({ cpuPercent: null })) }),
    ],
    [
      'a thread on CPU',
      () => ({
        ...base,
        snapshot: snap(
          T,
          bufferedRoot({
            threads: [
              { tid: ROOT, state: 'S', wchan: 'pipe_read', syscall: READ0 },
              { tid: ROOT + 1, state: 'R', wchan: null, syscall: 'running' },
            ],
          }),
        ),
      }),
    ],
    ['a live child', () => ({ ...base, snapshot: snap(T, bufferedRoot(), proc({ pid: CHILD })) })],
    [
      'the host is not reading',
      () => ({
        ...base,
        tick: tick(T, { lastStdoutByteAt: 900, readingStdout: false, readerMode: 'paused' }),
        snapshot: snap(T, bufferedRoot()),
      }),
    ],
    [
      'reading another fd',
      () => ({
        ...base,
        snapshot: snap(
          T,
          bufferedRoot({}, { syscall: { ...READ0, fd: 3 }, fdTarget: 'socket:[4]' }),
        ),
      }),
    ],
    [
      'a helper thread reading',
      () => ({ ...base, snapshot: snap(T, bufferedRoot({}, { tid: ROOT + 1 })) }),
    ],
    [
      'in its event loop (not read)',
      () => ({
        ...base,
        snapshot: snap(T, bufferedRoot({}, { kind: 'event-loop', syscall: EPOLL })),
      }),
    ],
    ['nothing owed', () => ({ ...base, owed: [], snapshot: snap(T, bufferedRoot()) })],
    [
      'the server exited',
      () => ({
        ...base,
        tick: tick(T, { lastStdoutByteAt: 900, alive: false }),
        snapshot: snap(T, bufferedRoot()),
      }),
    ],
    [
      "stdout's end came",
      () => ({
        ...base,
        tick: tick(T, { lastStdoutByteAt: 900, stdoutEnded: true }),
        snapshot: snap(T, bufferedRoot()),
      }),
    ],
    [
      'the sample is stale (1501 ms old)',
      () => ({ ...base, snapshot: snap(T - 1501, bufferedRoot()) }),
    ],
    ['no sample', () => ({ ...base, snapshot: null })],
  ];
  for (const [name, input] of misses) {
    it(`does not fire: ${name}`, () => {
      const h = make();
      h.rules.evaluate(input());
      expect(h.codes()).toEqual([]);
    });
  }

  it('a sample exactly 1500 ms old still counts', () => {
    const h = make();
    h.rules.evaluate({ ...base, snapshot: snap(T - 1500, bufferedRoot()) });
    expect(h.codes()).toEqual(['server-output-buffered']);
  });
});

/* --------------------------------------------------------------------------- server-busy */

function busyRoot(cpuMs: number, cpuPercent: number, runnable = false): ProcessSample {
  return proc({
    cpuPercent,
    cpuMs,
    state: runnable ? 'R' : 'S',
    threads: [{ tid: ROOT, state: runnable ? 'R' : 'S', wchan: null, syscall: null }],
    activity: activity(cpuPercent >= 50 ? 'running' : 'sleeping'),
  });
}

describe('ProcessFindings: server-busy', () => {
  const owedList = [owed(0)];

  function run(
    h: ReturnType<typeof make>,
    points: [t: number, cpuMs: number, cpu: number, runnable?: boolean][],
    over: Partial<TickState> = {},
  ): void {
    for (const [t, cpuMs, cpu, runnable] of points) {
      h.rules.evaluate({
        tick: tick(t, over),
        owed: owedList,
        snapshot: snap(t, busyRoot(cpuMs, cpu, runnable)),
      });
    }
  }

  it('says what the CPU means: a tool on the main thread, other threads, or a start-up', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 95, true],
      [2000, 10_950, 95, true],
      [3000, 11_900, 95, true],
    ]);
    expect(h.find('server-busy')?.message).toContain(
      'a CPU-bound tool; a cancellation reaches it only if it checks',
    );
    const idleMain = make();
    run(idleMain, [
      [1000, 10_000, 95],
      [2000, 10_950, 95],
      [3000, 11_900, 95],
    ]);
    expect(idleMain.find('server-busy')?.message).toContain('its main thread is free');
    const startUp = make();
    for (const [t, cpuMs] of [
      [1000, 10_000],
      [2000, 10_950],
      [3000, 11_900],
    ]) {
      startUp.rules.evaluate({
        tick: tick(t),
        owed: [{ ...owed(0), method: 'initialize' }],
        snapshot: snap(t, busyRoot(cpuMs, 95, true)),
      });
    }
    expect(startUp.find('server-busy')?.message).toContain('a slow start-up');
  });

  it('fires after 2 s on CPU (≥ 80 %, on average) with no output', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 95],
      [2000, 10_950, 95],
    ]);
    expect(h.codes()).toEqual([]);
    expect(h.rules.lastBusyAt).toBe(2000);
    run(h, [[3000, 11_900, 95]]);
    const f = h.find('server-busy');
    expect(f?.level).toBe('warn');
    expect(f?.message).toContain('request 7 (tools/call) owed for 3.0 s');
    expect(f?.message).toContain('(95 % of a core on average) for 2.0 s with no output for 3.0 s');
    expect(f?.evidence).toMatchObject({
      pid: ROOT,
      command: 'python3 srv.py',
      state: 'S',
      cpuPercent: 95,
      ms: 2000,
    });
  });

  it('raised active; inactive once the server is off CPU', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 95],
      [2000, 10_950, 95],
      [3000, 11_900, 95],
    ]);
    expect(h.find('server-busy')?.active).toBe(true);
    run(h, [[3500, 11_910, 2]]);
    expect(h.find('server-busy')).toMatchObject({ active: false, count: 1 });
  });

  it('does not fire at 1.9 s', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 95],
      [2900, 11_805, 95],
    ]);
    expect(h.codes()).toEqual([]);
  });

  it('checks the threshold on average: samples at 85 % over a CPU time that moved 50 % do not fire', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 85],
      [2000, 10_500, 85],
      [3000, 11_000, 85],
    ]);
    expect(h.codes()).toEqual([]);
  });

  it('a runnable thread with at least half a core counts (a loaded machine)', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 60, true],
      [2000, 10_550, 60, true],
      [3000, 11_100, 60, true],
    ]);
    const f = h.find('server-busy');
    expect(f?.message).toContain('(55 % of a core on average, runnable)');
    expect(f?.evidence?.cpuPercent).toBe(55);
  });

  it('does not fire under 80 % without a runnable thread, or under 50 % with one', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 79],
      [3000, 11_580, 79],
    ]);
    const g = make();
    run(g, [
      [1000, 10_000, 49, true],
      [3000, 10_980, 49, true],
    ]);
    expect([...h.codes(), ...g.codes()]).toEqual([]);
  });

  it('does not fire while output is coming', () => {
    const h = make();
    for (const t of [1000, 2000, 3000]) {
      h.rules.evaluate({
        tick: tick(t, { lastStdoutByteAt: t - 100 }),
        owed: owedList,
        snapshot: snap(t, busyRoot(10_000 + (t - 1000) * 0.95, 95)),
      });
    }
    expect(h.codes()).toEqual([]);
  });

  it('a drop off CPU starts the episode over', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 95],
      [2000, 10_100, 10],
      [3000, 11_050, 95],
      [4000, 12_000, 95],
    ]);
    expect(h.codes()).toEqual([]);
    run(h, [[5000, 12_950, 95]]);
    expect(h.find('server-busy')?.evidence?.ms).toBe(2000);
  });

  it('lastBusyAt is not set by a blip under half the budget', () => {
    const h = make();
    run(h, [
      [1000, 10_000, 95],
      [1500, 10_475, 95],
      [2000, 10_500, 5],
    ]);
    expect(h.rules.lastBusyAt).toBeNull();
  });
});
