import { describe, expect, it } from 'vitest';
import type { FindingCode, LiveFinding } from '../../../shared/findings.js';
import type {
  Activity,
  ProcessSample,
  ProcessSnapshot,
  StdioEnd,
  SyscallInfo,
} from '../../../shared/process.js';
import { type RequestRecord, sentRecord } from '../../../shared/requests.js';
import { DEFAULT_BUDGETS } from '../../../shared/session-options.js';
import { FindingsEngine } from './findings-engine.js';
import { evidenceOf, ProcessFindings, processLine, writeProofOf } from './process-findings.js';
import type { TickState } from './tick-state.js';

const ROOT = 5000;
const CHILD = 5001;

const READ0: SyscallInfo = { nr: 0, name: 'read', fd: 0, bytes: 8192 };
const WRITE1: SyscallInfo = { nr: 1, name: 'write', fd: 1, bytes: 65_536 };
const EPOLL: SyscallInfo = { nr: 232, name: 'epoll_wait', fd: null, bytes: null };

function activity(kind: Activity['kind'], over: Partial<Activity> = {}): Activity {
  return { kind, tid: ROOT, syscall: null, wchan: null, forMs: null, fdTarget: null, ...over };
}

function proc(over: Partial<ProcessSample> = {}): ProcessSample {
  const pid = over.pid ?? ROOT;
  return {
    pid,
    ppid: pid === ROOT ? 1 : ROOT,
    command: pid === ROOT ? 'python3 srv.py' : 'sh -c worker',
    state: 'S',
    cpuPercent: 0,
    cpuMs: 0,
    writtenBytes: 0,
    writeRate: 0,
    threadCount: 1,
    threads: [{ tid: pid, state: 'S', wchan: null, syscall: null }],
    activity: activity('sleeping', { tid: pid }),
    stdio: [],
    depth: pid === ROOT ? 0 : 1,
    ...over,
  };
}

function snap(t: number, ...processes: ProcessSample[]): ProcessSnapshot {
  return { t, rootPid: ROOT, processes, omitted: 0 };
}

function tick(t: number, over: Partial<TickState> = {}): TickState {
  return {
    t,
    alive: true,
    stdoutEnded: false,
    readerMode: 'drain',
    readingStdout: true,
    notReadingSince: null,
    pendingBytes: 0,
    lastStdoutByteAt: null,
    responsesOwed: 1,
    dispatcherLongestWaitMs: 0,
    dispatcherDepth: 0,
    queueOldestAgeMs: 0,
    stdinPendingSince: null,
    stdinPendingBytes: 0,
    ...over,
  };
}

function owed(sentAt: number, id = 7, method = 'tools/call'): RequestRecord {
  return sentRecord({ id, method, sentAt, requestBytes: 50 });
}

function make() {
  const seen: LiveFinding[] = [];
  // A copy per notification: the engine updates one object in place.
  const engine = new FindingsEngine(DEFAULT_BUDGETS, (f) => seen.push({ ...f }));
  const rules = new ProcessFindings(DEFAULT_BUDGETS, engine);
  const find = (code: FindingCode) => engine.all().find((f) => f.code === code);
  const codes = () => engine.all().map((f) => f.code);
  return { engine, rules, seen, find, codes };
}

/* ---------------------------------------------------------------- server-output-buffered */

/** Python without -u: answered into its stdout buffer, back in read(0) waiting. */
function bufferedRoot(over: Partial<ProcessSample> = {}, a: Partial<Activity> = {}) {
  return proc({
    cpuPercent: 0.5,
    activity: activity('reading', {
      syscall: READ0,
      wchan: 'pipe_read',
      forMs: 2500,
      fdTarget: 'pipe:[10]',
      ...a,
    }),
    ...over,
  });
}

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

/* -------------------------------------------------------------------- subprocess-blocked */

function blockedChild(over: Partial<ProcessSample> = {}, a: Partial<Activity> = {}) {
  const pipe = a.fdTarget ?? 'pipe:[99]';
  const peer: StdioEnd['peer'] = {
    pid: ROOT,
    command: 'python3 srv.py',
    note: 'holds the read end as fd 5',
  };
  return proc({
    pid: CHILD,
    activity: activity('writing', {
      tid: CHILD,
      syscall: WRITE1,
      wchan: 'pipe_write',
      forMs: 1200,
      fdTarget: pipe,
      ...a,
    }),
    stdio: [{ fd: 1, target: pipe, nonBlocking: false, peer }],
    ...over,
  });
}

const waitingRoot = () =>
  proc({
    activity: activity('waiting-child', {
      syscall: { nr: 61, name: 'wait4', fd: null, bytes: null },
    }),
  });

describe('ProcessFindings: subprocess-blocked', () => {
  const T = 5000;
  const base = { tick: tick(T, { lastStdoutByteAt: 900 }), owed: [owed(1000)] };

  it('fires for a child blocked in write on a pipe for ≥ 1 s, naming who holds the read end', () => {
    const h = make();
    h.rules.evaluate({ ...base, snapshot: snap(T, waitingRoot(), blockedChild()) });
    const f = h.find('subprocess-blocked');
    expect(f?.level).toBe('error');
    expect(f?.message).toContain(
      'child 5001 (sh -c worker) has been blocked in write(1, 65,536 B) for 1.2 s on pipe:[99], ' +
        'whose read end the server (pid 5000) holds and does not read; the server is waiting ' +
        'for a child to exit (wait4) — each waits for the other',
    );
    expect(f?.evidence).toEqual({
      pid: CHILD,
      command: 'sh -c worker',
      state: 'S',
      wchan: 'pipe_write',
      syscall: { name: 'write', fd: 1, bytes: 65_536 },
      cpuPercent: 0,
      ms: 1200,
      pipe: 'pipe:[99]',
      reader: { pid: ROOT, command: 'python3 srv.py', note: 'holds the read end as fd 5' },
      server: { pid: ROOT, activity: 'waiting for a child to exit (wait4)' },
    });
  });

  it('names another reader, a socket, or a pipe nobody holds', () => {
    const other = make();
    const child = blockedChild();
    child.stdio[0].peer = { pid: 5002, command: 'cat', note: 'holds the read end as fd 0' };
    other.rules.evaluate({ ...base, snapshot: snap(T, waitingRoot(), child) });
    expect(other.find('subprocess-blocked')?.message).toContain(
      'whose read end pid 5002 (cat) holds and does not read',
    );

    const socket = make();
    const s = blockedChild({}, { fdTarget: 'socket:[42]' });
    s.stdio[0].peer = null;
    socket.rules.evaluate({ ...base, snapshot: snap(T, waitingRoot(), s) });
    expect(socket.find('subprocess-blocked')?.message).toContain(
      'a socket whose other end /proc cannot name',
    );

    const nobody = make();
    const n = blockedChild();
    n.stdio[0].peer = null;
    nobody.rules.evaluate({ ...base, snapshot: snap(T, waitingRoot(), n) });
    expect(nobody.find('subprocess-blocked')?.message).toContain(
      'whose read end no process of the tree holds',
    );
  });

  const misses: [string, () => ProcessSample[]][] = [
    ['blocked just under 1 s', () => [waitingRoot(), blockedChild({}, { forMs: 999 })]],
    [
      "writing Pipescope's end (the server's stdout)",
      () => {
        const c = blockedChild({}, { fdTarget: 'pipe:[11]' });
        c.stdio[0].peer = { pid: process.pid, command: 'pipescope', note: "the server's stdout" };
        return [waitingRoot(), c];
      },
    ],
    ['writing a file', () => [waitingRoot(), blockedChild({}, { fdTarget: '/tmp/out.log' })]],
    [
      'reading, not writing',
      () => [waitingRoot(), blockedChild({}, { kind: 'reading', syscall: READ0 })],
    ],
    [
      'the server itself writing (depth 0)',
      () => [blockedChild({ pid: ROOT, depth: 0 }, { tid: ROOT })],
    ],
  ];
  for (const [name, processes] of misses) {
    it(`does not fire: ${name}`, () => {
      const h = make();
      h.rules.evaluate({ ...base, snapshot: snap(T, ...processes()) });
      expect(h.codes()).not.toContain('subprocess-blocked');
    });
  }

  it('does not fire with nothing owed', () => {
    const h = make();
    h.rules.evaluate({ ...base, owed: [], snapshot: snap(T, waitingRoot(), blockedChild()) });
    expect(h.codes()).toEqual([]);
  });
});

/* ----------------------------------------------------------------------------- evidence */

describe('evidenceOf', () => {
  it('takes what the activity shows, with ms only when given', () => {
    const p = bufferedRoot();
    expect(evidenceOf(p)).not.toHaveProperty('ms');
    expect(evidenceOf(p, 1234.6).ms).toBe(1235);
    expect(evidenceOf(proc()).syscall).toBeNull();
  });
});

/* ---------------------------------------------------------------------------- writeProofOf */

describe('writeProofOf', () => {
  const T = 10_000;

  it('a Python-style blocked write(1) says so, with how long and the reader', () => {
    const root = proc({
      activity: activity('writing', {
        syscall: { nr: 1, name: 'write', fd: 1, bytes: 1_000_000 },
        wchan: 'pipe_write',
        forMs: 3100,
        fdTarget: 'pipe:[11]',
      }),
    });
    const proof = writeProofOf(
      snap(T - 50, root),
      tick(T, { readingStdout: false, readerMode: 'paused' }),
    );
    expect(proof).toEqual({
      text:
        'pid 5000 is blocked in write(1, 1,000,000 B) for 3.1 s (wchan pipe_write): the pipe is ' +
        'full; the reader is not reading (paused)',
      blockedMs: 3100,
      evidence: {
        pid: ROOT,
        command: 'python3 srv.py',
        state: 'S',
        wchan: 'pipe_write',
        syscall: { name: 'write', fd: 1, bytes: 1_000_000 },
        cpuPercent: 0,
        ms: 3100,
      },
    });
    expect(writeProofOf(snap(T, root), tick(T, { readerMode: 'naive' }))?.text).toContain(
      'the reader reads (naive) but the pipe stays full',
    );
  });

  it('a write on another fd (stderr) is no proof about stdout', () => {
    const root = proc({
      activity: activity('writing', { syscall: { ...WRITE1, fd: 2 }, forMs: 3000 }),
    });
    expect(writeProofOf(snap(T, root), tick(T))).toBeNull();
  });

  it('a Node-style idle event loop with a non-blocking stdout that writes nothing', () => {
    const root = proc({
      activity: activity('event-loop', { syscall: EPOLL, wchan: 'ep_poll' }),
      writtenBytes: 1_048_576,
      writeRate: 0,
      stdio: [{ fd: 1, target: 'pipe:[11]', nonBlocking: true, peer: null }],
    });
    const proof = writeProofOf(snap(T, root), tick(T, { readingStdout: false }));
    expect(proof?.text).toBe(
      'pid 5000 is idle in its event loop and writes nothing after 1,048,576 B written; its ' +
        'stdout is non-blocking, so what the pipe does not take waits in its memory, not in ' +
        'write(); the reader is not reading (drain)',
    );
    expect(proof?.blockedMs).toBe(0);
    expect(proof?.evidence).toMatchObject({ pid: ROOT, syscall: { name: 'epoll_wait' } });
    expect(proof?.evidence).not.toHaveProperty('ms');
    // Unknown bytes written: said without the count.
    expect(writeProofOf(snap(T, { ...root, writtenBytes: null }), tick(T))?.text).toContain(
      'writes nothing; its stdout is non-blocking',
    );
  });

  it('is null for a blocking stdout, a stdout still being written, a stale or missing sample', () => {
    const idle = proc({
      activity: activity('event-loop', { syscall: EPOLL }),
      stdio: [{ fd: 1, target: 'pipe:[11]', nonBlocking: true, peer: null }],
    });
    expect(writeProofOf(snap(T, idle), tick(T))).not.toBeNull();
    const blocking = { ...idle, stdio: [{ ...idle.stdio[0], nonBlocking: false }] };
    expect(writeProofOf(snap(T, blocking), tick(T))).toBeNull();
    expect(writeProofOf(snap(T, { ...idle, writeRate: 4096 }), tick(T))).toBeNull();
    expect(writeProofOf(snap(T - 1501, idle), tick(T))).toBeNull();
    expect(writeProofOf(null, tick(T))).toBeNull();
    expect(writeProofOf(snap(T), tick(T))).toBeNull();
  });
});

/* ----------------------------------------------------------------------------- processLine */

describe('processLine', () => {
  const T = 10_000;

  it('the server, then the telling children, then how many more', () => {
    const root = bufferedRoot({ cpuPercent: 0 }, { forMs: 3000 });
    const writer = blockedChild({ cpuPercent: 0 }, { forMs: 1500 });
    const spinner = proc({
      pid: 5003,
      command: 'node spin.js',
      cpuPercent: 99,
      activity: activity('running'),
    });
    const idle = proc({ pid: 5004, command: 'cat' });
    const line = processLine(snap(T, root, writer, idle, spinner), T);
    expect(line).toBe(
      'server 5000 python3 srv.py: waiting to read stdin for 3.0 s, 0 % CPU; ' +
        'child 5001 sh -c worker: writing its stdout, pipe:[99] (65,536 B), blocked 1.5 s, 0 % CPU; ' +
        'child 5003 node spin.js: on CPU (99 % of a core); 1 more process in its tree',
    );
  });

  it('counts processes in the plural, names at most three children', () => {
    const kids = [5001, 5002, 5003, 5004, 5005].map((pid) => blockedChild({ pid }, { tid: pid }));
    const line = processLine(snap(T, bufferedRoot(), proc({ pid: 5009 }), ...kids), T);
    expect(line?.match(/child /g)).toHaveLength(3);
    expect(line).toMatch(/; 3 more processes in its tree$/);
  });

  it('a lone server is one clause', () => {
    expect(processLine(snap(T, bufferedRoot()), T)).toBe(
      'server 5000 python3 srv.py: waiting to read stdin for 2.5 s, 1 % CPU',
    );
  });

  it('is null with no sample, a stale one, or an empty one', () => {
    expect(processLine(null, T)).toBeNull();
    expect(processLine(snap(T - 1501, bufferedRoot()), T)).toBeNull();
    expect(processLine(snap(T), T)).toBeNull();
  });
});
