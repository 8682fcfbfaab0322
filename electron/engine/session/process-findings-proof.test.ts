import { describe, expect, it } from 'vitest';
import type { Activity, ProcessSample, StdioEnd } from '../../../shared/process.js';
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
  WRITE1,
} from '../../../test/fixtures/process-rules.js';
import { evidenceOf, processLine, writeProofOf } from './process-findings.js';

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
      at: T - 50, // as of the sample, not the tick
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
