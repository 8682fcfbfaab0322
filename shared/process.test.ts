import { describe, expect, it } from 'vitest';
import {
  type Activity,
  describeActivity,
  describeProcess,
  describeSyscall,
  fdWord,
  groupDigits,
  type ProcessSample,
  type SyscallInfo,
} from './process.js';

const WRITE_1M: SyscallInfo = { nr: 1, name: 'write', fd: 1, bytes: 1_000_000 };

function activity(over: Partial<Activity> = {}): Activity {
  return {
    kind: 'unknown',
    tid: 1,
    syscall: null,
    wchan: null,
    forMs: null,
    fdTarget: null,
    ...over,
  };
}

function sample(over: Partial<ProcessSample> = {}): ProcessSample {
  return {
    pid: 1234,
    ppid: 1,
    command: 'python3 srv.py',
    state: 'S',
    cpuPercent: 0,
    cpuMs: 0,
    writtenBytes: 0,
    writeRate: 0,
    threadCount: 1,
    threads: [],
    activity: activity(),
    stdio: [],
    depth: 0,
    ...over,
  };
}

describe('groupDigits', () => {
  it('puts a comma every three digits, keeps the sign, drops a fraction', () => {
    expect(groupDigits(0)).toBe('0');
    expect(groupDigits(999)).toBe('999');
    expect(groupDigits(1000)).toBe('1,000');
    expect(groupDigits(65_536)).toBe('65,536');
    expect(groupDigits(12_582_994)).toBe('12,582,994');
    expect(groupDigits(1_000_000_000)).toBe('1,000,000,000');
    expect(groupDigits(-1_234_567)).toBe('-1,234,567');
    expect(groupDigits(1234.9)).toBe('1,234');
  });

  it('agrees with toLocaleString on integers', () => {
    for (const n of [1, 12, 123, 1234, 12_345, 123_456, 1_234_567, 2 ** 53 - 1]) {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});

describe('describeSyscall', () => {
  it('gives the name, the fd and the bytes with thousands separators', () => {
    expect(describeSyscall(WRITE_1M)).toBe('write(1, 1,000,000 B)');
    expect(describeSyscall({ nr: 0, name: 'read', fd: 0, bytes: 8192 })).toBe('read(0, 8,192 B)');
  });

  it('leaves out what the call does not take, and names an unknown call by its number', () => {
    expect(describeSyscall({ nr: 232, name: 'epoll_wait', fd: null, bytes: null })).toBe(
      'epoll_wait()',
    );
    expect(describeSyscall({ nr: 20, name: 'writev', fd: 1, bytes: null })).toBe('writev(1)');
    expect(describeSyscall({ nr: 999, name: null, fd: null, bytes: null })).toBe('syscall 999()');
  });
});

describe('fdWord', () => {
  it('names stdio by its name, a pipe on another fd by the pipe, a path by the path', () => {
    expect(fdWord(1, 'pipe:[123]')).toBe('stdout');
    expect(fdWord(0, null)).toBe('stdin');
    expect(fdWord(2, 'socket:[9]')).toBe('stderr');
    expect(fdWord(5, 'pipe:[77]')).toBe('pipe:[77]');
    expect(fdWord(1, '/tmp/out.log')).toBe('/tmp/out.log');
    expect(fdWord(7, null)).toBe('fd 7');
    expect(fdWord(null, null)).toBe('an fd');
  });
});

describe('describeActivity', () => {
  it('a write: what, how much, for how long (only once it lasts 500 ms)', () => {
    const w = activity({ kind: 'writing', syscall: WRITE_1M, forMs: 3100, fdTarget: 'pipe:[1]' });
    expect(describeActivity(w)).toBe('writing stdout (1,000,000 B), blocked 3.1 s');
    expect(describeActivity({ ...w, forMs: 750 })).toBe(
      'writing stdout (1,000,000 B), blocked 750 ms',
    );
    expect(describeActivity({ ...w, forMs: 499 })).toBe('writing stdout (1,000,000 B)');
    expect(describeActivity({ ...w, forMs: null })).toBe('writing stdout (1,000,000 B)');
    const writev = activity({
      kind: 'writing',
      syscall: { nr: 20, name: 'writev', fd: 1, bytes: null },
    });
    expect(describeActivity(writev)).toBe('writing stdout');
  });

  it("a child's stdio is its own: its stdout, with the pipe", () => {
    const w = activity({
      kind: 'writing',
      syscall: { nr: 1, name: 'write', fd: 1, bytes: 65_536 },
      forMs: 1500,
      fdTarget: 'pipe:[123]',
    });
    expect(describeActivity(w, 0, true)).toBe(
      'writing its stdout, pipe:[123] (65,536 B), blocked 1.5 s',
    );
    expect(describeActivity(w, 0, false)).toBe('writing stdout (65,536 B), blocked 1.5 s');
    // A pipe on fd 5 is named once, not "its pipe:[9], pipe:[9]".
    const other = {
      ...w,
      syscall: { nr: 1, name: 'write', fd: 5, bytes: 10 },
      fdTarget: 'pipe:[9]',
    };
    expect(describeActivity(other, 0, true)).toBe('writing pipe:[9] (10 B), blocked 1.5 s');
    // A file is named by its path.
    expect(describeActivity({ ...w, fdTarget: '/tmp/out.log' }, 0, true)).toBe(
      'writing /tmp/out.log (65,536 B), blocked 1.5 s',
    );
  });

  it('reading, waiting for a child, an event loop', () => {
    const r = activity({
      kind: 'reading',
      syscall: { nr: 0, name: 'read', fd: 0, bytes: 8192 },
      forMs: 3000,
      fdTarget: 'pipe:[5]',
    });
    expect(describeActivity(r)).toBe('waiting to read stdin for 3.0 s');
    expect(describeActivity({ ...r, forMs: 100 })).toBe('waiting to read stdin');
    const w = activity({
      kind: 'waiting-child',
      syscall: { nr: 61, name: 'wait4', fd: null, bytes: null },
      forMs: 2000,
    });
    expect(describeActivity(w)).toBe('waiting for a child to exit (wait4) for 2.0 s');
    expect(describeActivity({ ...w, syscall: null, forMs: null })).toBe(
      'waiting for a child to exit (wait)',
    );
    const e = activity({
      kind: 'event-loop',
      syscall: { nr: 232, name: 'epoll_wait', fd: null, bytes: null },
    });
    expect(describeActivity(e)).toBe('idle in its event loop (epoll_wait)');
    expect(describeActivity({ ...e, syscall: null })).toBe('idle in its event loop (poll)');
  });

  it('on CPU, asleep, stopped, zombie, unknown', () => {
    expect(describeActivity(activity({ kind: 'running' }), 97.6)).toBe('on CPU (98 % of a core)');
    expect(describeActivity(activity({ kind: 'running' }))).toBe('on CPU');
    const futex = { nr: 202, name: 'futex', fd: null, bytes: null };
    expect(describeActivity(activity({ kind: 'sleeping', syscall: futex, wchan: 'x' }))).toBe(
      'asleep in futex',
    );
    expect(describeActivity(activity({ kind: 'sleeping', wchan: 'do_wait' }))).toBe(
      'asleep (do_wait)',
    );
    expect(describeActivity(activity({ kind: 'sleeping' }))).toBe('asleep');
    expect(describeActivity(activity({ kind: 'stopped' }))).toBe('stopped (signal or debugger)');
    expect(describeActivity(activity({ kind: 'zombie' }))).toBe('exited, not yet reaped (zombie)');
    expect(describeActivity(activity())).toBe('state unknown');
  });
});

describe('describeProcess', () => {
  it('pid, command, what it does, CPU', () => {
    const p = sample({
      activity: activity({ kind: 'writing', syscall: WRITE_1M, forMs: 3100, fdTarget: 'pipe:[1]' }),
      cpuPercent: 0.2,
    });
    expect(describeProcess(p)).toBe(
      '1234 python3 srv.py: writing stdout (1,000,000 B), blocked 3.1 s, 0 % CPU',
    );
  });

  it('says CPU once for a process on CPU, and not at all when unknown', () => {
    expect(
      describeProcess(sample({ activity: activity({ kind: 'running' }), cpuPercent: 99.4 })),
    ).toBe('1234 python3 srv.py: on CPU (99 % of a core)');
    expect(
      describeProcess(sample({ activity: activity({ kind: 'sleeping' }), cpuPercent: null })),
    ).toBe('1234 python3 srv.py: asleep');
  });

  it('uses the child wording under the server and cuts the command to 60 characters', () => {
    const p = sample({
      pid: 1300,
      depth: 1,
      command: `sh -c ${'x'.repeat(100)}`,
      cpuPercent: 1,
      activity: activity({
        kind: 'writing',
        syscall: { nr: 1, name: 'write', fd: 1, bytes: 4096 },
        forMs: 2000,
        fdTarget: 'pipe:[88]',
      }),
    });
    expect(describeProcess(p)).toBe(
      `1300 sh -c ${'x'.repeat(54)}: writing its stdout, pipe:[88] (4,096 B), blocked 2.0 s, 1 % CPU`,
    );
  });
});
