import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LinuxCache, readSmall, sampleLinuxTree } from './linux.js';
import { parseStat, parseSyscall } from './proc-parse.js';
import { classOf, syscallTable } from './syscalls.js';

const X64 = syscallTable('x64');
const ARM64 = syscallTable('arm64');

/** A /proc/PID/stat line: fields 3.. after `(comm)`, as proc(5) numbers them. */
function statLine(comm: string, over: Record<number, string> = {}): string {
  // Field 3 state, 4 ppid, 14 utime, 15 stime, 20 num_threads, 22 starttime; 52 fields in all.
  const fields: string[] = [];
  for (let i = 3; i <= 52; i++) fields.push(over[i] ?? '0');
  return `4242 (${comm}) ${fields.join(' ')}\n`;
}

describe('parseStat', () => {
  it('reads state, ppid, CPU, threads and start time after a comm with spaces and parentheses', () => {
    const text = statLine('my (odd) comm) x', {
      3: 'S',
      4: '17',
      14: '123',
      15: '45',
      20: '7',
      22: '987654',
    });
    expect(parseStat(text)).toEqual({
      state: 'S',
      ppid: 17,
      cpuMs: (123 + 45) * 10,
      threads: 7,
      start: '987654',
    });
  });

  it('reads a real-looking line (comm without spaces)', () => {
    const text =
      '1234 (python3) D 1200 1234 1200 0 -1 4194560 2000 0 0 0 250 50 0 0 20 0 3 0 55555 ' +
      '30000000 2500 18446744073709551615 1 1 0 0 0 0 0 16781312 2 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n';
    expect(parseStat(text)).toEqual({
      state: 'D',
      ppid: 1200,
      cpuMs: 3000,
      threads: 3,
      start: '55555',
    });
  });

  it('gives null without a closing parenthesis or with too few fields', () => {
    expect(parseStat('4242 (trunc')).toBeNull();
    expect(parseStat('4242 (short) S 1 2 3')).toBeNull();
  });
});

describe('parseSyscall (x86-64)', () => {
  it('reads write(1, 1,000,001 B) and keeps the whole line as the call key', () => {
    const line = '1 0x1 0x55be052e2080 0xf4241 0x0 0x0 0x0 0x7ffc8a3c1b58 0x7f1d2c91e887';
    const { call, key } = parseSyscall(`${line}\n`, X64);
    expect(call).toEqual({ nr: 1, name: 'write', fd: 1, bytes: 1_000_001 });
    expect(key).toBe(line);
  });

  it('reads read(0, 8,192 B)', () => {
    const { call } = parseSyscall(
      '0 0x0 0x7ffd1e2c3000 0x2000 0x0 0x0 0x0 0x7ffd1e2c2f08 0x7f0a1b2c3d4e',
      X64,
    );
    expect(call).toEqual({ nr: 0, name: 'read', fd: 0, bytes: 8192 });
  });

  it('reads wait4(-1, …) with no fd and no byte count', () => {
    const { call } = parseSyscall(
      '61 0xffffffff 0x7ffe5a1c 0x0 0x0 0x0 0x0 0x7ffe5a1b0000 0x7f00deadbeef',
      X64,
    );
    expect(call).toEqual({ nr: 61, name: 'wait4', fd: null, bytes: null });
  });

  it('reads an fd argument of 0xffffffff as no fd even for a call that takes one', () => {
    const { call } = parseSyscall('1 0xffffffff 0x1000 0x10 0x0 0x0 0x0 0x0 0x0', X64);
    expect(call).toEqual({ nr: 1, name: 'write', fd: null, bytes: 16 });
  });

  it('gives no fd or bytes for a call that takes neither (futex)', () => {
    const { call } = parseSyscall('202 0x7f00aa 0x80 0x2 0x0 0x0 0x0 0x7ffe 0x7f00', X64);
    expect(call).toEqual({ nr: 202, name: 'futex', fd: null, bytes: null });
  });

  it("names a shell's wait (rt_sigsuspend) as waiting for a child", () => {
    const { call } = parseSyscall('130 0x7ffd1c0 0x8 0x0 0x0 0x0 0x0 0x7ffd1b8 0x7f1a', X64);
    expect(call).toMatchObject({ name: 'rt_sigsuspend', fd: null, bytes: null });
    expect(classOf('rt_sigsuspend')).toBe('wait-child');
  });

  it('gives "running" with no key for a thread on CPU', () => {
    expect(parseSyscall('running\n', X64)).toEqual({ call: 'running', key: null });
  });

  it('gives null for a thread not in a call (-1)', () => {
    expect(parseSyscall('-1 0x7ffc8a3c1b58 0x7f1d2c91e887\n', X64)).toEqual({
      call: null,
      key: null,
    });
  });

  it('keeps the number of a call it has no name for, with no fd or bytes', () => {
    const line = '999 0x3 0x1000 0x40 0x0 0x0 0x0 0x7ffc 0x7f00';
    expect(parseSyscall(line, X64)).toEqual({
      call: { nr: 999, name: null, fd: null, bytes: null },
      key: line,
    });
  });

  it('gives names as null for an architecture without a table', () => {
    expect(syscallTable('ia32')).toBeNull();
    const { call } = parseSyscall('1 0x1 0x1000 0x10 0x0 0x0 0x0 0x0 0x0', null);
    expect(call).toEqual({ nr: 1, name: null, fd: null, bytes: null });
  });
});

describe('parseSyscall (arm64, the generic table)', () => {
  it('reads write as 64 and read as 63', () => {
    expect(parseSyscall('64 0x1 0xaaaad000 0x10000 0x0 0x0 0x0 0xffff 0xffff', ARM64).call).toEqual(
      { nr: 64, name: 'write', fd: 1, bytes: 65_536 },
    );
    expect(parseSyscall('63 0x0 0xaaaad000 0x2000 0x0 0x0 0x0 0xffff 0xffff', ARM64).call).toEqual({
      nr: 63,
      name: 'read',
      fd: 0,
      bytes: 8192,
    });
  });

  it('reads numbers by the table it is given (1 is not write on arm64, 64 not on x86-64)', () => {
    expect(parseSyscall('260 0xffffffff 0x0 0x0 0x0 0x0 0x0 0x0 0x0', ARM64).call).toMatchObject({
      name: 'wait4',
    });
    expect(parseSyscall('1 0x1 0x0 0x10 0x0 0x0 0x0 0x0 0x0', ARM64).call).toMatchObject({
      name: null,
      fd: null,
    });
    expect(parseSyscall('64 0x1 0x0 0x10 0x0 0x0 0x0 0x0 0x0', X64).call).toMatchObject({
      name: null,
    });
  });
});

describe('readSmall', () => {
  it('gives null for a file that cannot be opened', () => {
    expect(readSmall('/proc/does-not-exist/stat')).toBeNull();
  });
});

describe.skipIf(process.platform !== 'linux')('sampleLinuxTree on a real process', () => {
  let child: ChildProcess | null = null;
  /** Grandchildren to kill too (a shell does not pass SIGKILL on). */
  const extra: number[] = [];

  afterEach(() => {
    for (const pid of extra.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    child?.kill('SIGKILL');
    child = null;
  });

  it('sees `sleep 5` asleep in nanosleep or clock_nanosleep', async () => {
    child = spawn('sleep', ['5'], { stdio: 'ignore' });
    const pid = child.pid;
    if (pid === undefined) throw new Error('sleep did not start');
    const table = syscallTable();
    const proc = await vi.waitFor(
      () => {
        const tree = sampleLinuxTree(pid);
        const p = tree?.processes[0];
        const th = p?.threads[0];
        const sys = th?.syscall;
        // Wait until exec is done and the thread has gone to sleep.
        if (p?.command !== 'sleep 5' || p.state !== 'S' || !sys || sys === 'running') {
          throw new Error('not asleep yet');
        }
        return { tree, p, sys };
      },
      { timeout: 3000, interval: 20 },
    );
    expect(proc.tree?.rootPid).toBe(pid);
    expect(proc.p.pid).toBe(pid);
    expect(proc.p.ppid).toBe(process.pid);
    expect(proc.p.depth).toBe(0);
    expect(proc.p.threadCount).toBe(1);
    if (table) expect(['nanosleep', 'clock_nanosleep']).toContain(proc.sys.name);
    expect(proc.p.stdio.map((s) => s.fd)).toEqual([0, 1, 2]);
    expect(proc.p.stdio[1].target).toBe('/dev/null');
  });

  it('sees a shell asleep waiting on its child, the child under it, across cached samples', async () => {
    child = spawn('sh', ['-c', 'sleep 5 & wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = child.pid;
    if (pid === undefined) throw new Error('sh did not start');
    const cache = new LinuxCache();
    const first = await vi.waitFor(
      () => {
        const tree = sampleLinuxTree(pid, cache);
        const sys = tree?.processes[0]?.threads[0]?.syscall;
        const sleeper = tree?.processes[1];
        if (sleeper && !extra.includes(sleeper.pid)) extra.push(sleeper.pid);
        if (sleeper?.command !== 'sleep 5' || !sys || sys === 'running') {
          throw new Error('not waiting yet');
        }
        return { tree, sys };
      },
      { timeout: 3000, interval: 20 },
    );
    // dash waits in rt_sigsuspend, bash in wait4: a call either way, with its number.
    expect(first.sys.nr).toBeGreaterThanOrEqual(0);
    expect(first.tree.processes[0].state).toBe('S');
    // More samples than the cache trusts anything for: the tree stays whole and the same.
    let last = first.tree;
    for (let i = 0; i < 7; i++) {
      const next = sampleLinuxTree(pid, cache);
      if (!next) throw new Error('the shell is gone');
      last = next;
    }
    expect(last.processes.map((p) => [p.ppid, p.depth, p.command])).toEqual([
      [process.pid, 0, 'sh -c sleep 5 & wait'],
      [pid, 1, 'sleep 5'],
    ]);
    expect(last.processes[0].stdio[1].target).toMatch(/^(pipe|socket):\[\d+\]$/);
    expect(last.processes[1].stdio[1].target).toBe(last.processes[0].stdio[1].target);
    expect(last.processes[1].threads[0].syscall).toMatchObject({
      name: expect.stringMatching(/^(clock_)?nanosleep$/),
    });
  });

  it('gives null for a pid that is gone', async () => {
    child = spawn('true', [], { stdio: 'ignore' });
    const pid = child.pid;
    if (pid === undefined) throw new Error('true did not start');
    await new Promise<void>((resolve) => child?.once('exit', () => resolve()));
    expect(sampleLinuxTree(pid)).toBeNull();
  });
});
