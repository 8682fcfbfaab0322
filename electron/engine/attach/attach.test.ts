import { describe, expect, it } from 'vitest';
import type { SyscallInfo } from '../../../shared/process.js';
import {
  type Holder,
  type ProcessSource,
  type RawProcess,
  type RawTree,
  unavailableSource,
} from '../process/source.js';
import { AttachError, attach, SYSCALL_REFUSED_NOTE } from './attach.js';
import type { AttachProc, OneProcess, SocketTable } from './proc.js';

const SERVER = 300;
const HOST = 200;
const WRITE1: SyscallInfo = { nr: 1, name: 'write', fd: 1, bytes: 16_384 };

function server(over: Partial<RawProcess> = {}): RawProcess {
  return {
    pid: SERVER,
    ppid: HOST,
    command: 'node srv.js',
    state: 'S',
    cpuMs: 50,
    writtenBytes: 1000,
    readBytes: 10,
    threadCount: 1,
    threads: [
      {
        tid: SERVER,
        state: 'S',
        wchan: 'sock_alloc_send_pskb',
        syscall: WRITE1,
        callKey: '1 0x1 0x0 0x4000',
        fdTarget: 'socket:[23]',
      },
    ],
    stdio: [
      { fd: 0, target: 'socket:[21]', nonBlocking: false },
      { fd: 1, target: 'socket:[23]', nonBlocking: false },
      { fd: 2, target: '/dev/null', nonBlocking: false },
    ],
    depth: 0,
    identity: `${SERVER}:1:node`,
    ...over,
  };
}

/** A source whose samples are `tree()` (null: the process is gone). */
function source(tree: () => RawTree | null): ProcessSource {
  const held: Record<string, Holder[]> = {
    'socket:[20]': [{ pid: HOST, fd: 19, mode: 'read-write' }],
    'socket:[22]': [{ pid: HOST, fd: 21, mode: 'read-write' }],
  };
  return {
    availability: { available: true },
    sample: () => Promise.resolve(tree()),
    holders: (target, pids) =>
      Promise.resolve((held[target] ?? []).filter((h) => pids.includes(h.pid))),
  };
}

function proc(o: { alive?: () => boolean; syscall?: 'readable' | 'refused' } = {}): AttachProc {
  const alive = o.alive ?? (() => true);
  const table: SocketTable = new Map([
    [21, { peer: 20, recvQ: 0, sendQ: 0 }],
    [20, { peer: 21, recvQ: 0, sendQ: 0 }],
    [23, { peer: 22, recvQ: 0, sendQ: 200_000 }],
    [22, { peer: 23, recvQ: 150_000, sendQ: 0 }],
  ]);
  const host: OneProcess = {
    pid: HOST,
    state: 'S',
    cpuMs: 5,
    readBytes: 777,
    activity: {
      kind: 'event-loop',
      tid: HOST,
      syscall: null,
      wchan: 'ep_poll',
      forMs: null,
      fdTarget: null,
    },
  };
  return {
    check: (pid) =>
      pid === SERVER && alive() ? { ok: true } : { ok: false, reason: `no such process: ${pid}` },
    parentOf: (pid) => (pid === SERVER ? HOST : pid === HOST ? 1 : null),
    commandOf: (pid) => (pid === HOST ? 'node host.js' : pid === SERVER ? 'node srv.js' : 'init'),
    argvOf: (pid) => (pid === SERVER ? ['node', 'srv.js'] : null),
    stdioOf: () => [null, null, null],
    allPids: () => [1, HOST, SERVER],
    syscallAccess: () => o.syscall ?? 'readable',
    one: (pid) => (pid === HOST ? host : null),
    unixSockets: () => Promise.resolve(table),
  };
}

const tree = (p: RawProcess): RawTree => ({ rootPid: SERVER, processes: [p], omitted: 0 });

describe('attach (the window, on a scripted source)', () => {
  it("the probe report's shape, the host named, the block and the host's stall found", async () => {
    const r = await attach(SERVER, {
      watchMs: 1400,
      source: source(() => tree(server())),
      proc: proc(),
    });
    expect(Object.keys(r)).toEqual([
      'server',
      'metrics',
      'requests',
      'recovery',
      'findings',
      'process',
      'attach',
    ]);
    expect(r.server).toEqual({ command: 'node', args: ['srv.js'], pid: SERVER, exit: null });
    expect(r.requests).toEqual([]);
    expect(r.recovery).toBeNull();
    expect(r.metrics.stdoutBytes).toBe(0);
    expect(r.process.available).toBe(true);
    expect(r.process.samples).toBeGreaterThanOrEqual(3);
    expect(r.findings.map((f) => f.code)).toEqual(['server-write-blocked', 'host-not-reading']);
    expect(r.attach.host).toMatchObject({ pid: HOST, command: 'node host.js' });
    expect(r.attach.parent).toEqual({ pid: HOST, command: 'node host.js' });
    expect(r.attach.stdio.map((s) => [s.fd, s.kind, s.peer?.pid ?? null])).toEqual([
      [0, 'socket', HOST],
      [1, 'socket', HOST],
      [2, 'null', null],
    ]);
    expect(r.attach.stdio[1].unread).toEqual({ start: 150_000, end: 150_000 });
    expect(r.attach.syscallReadable).toBe(true);
    expect(r.attach.tree).toEqual([
      expect.objectContaining({
        pid: SERVER,
        wchan: 'sock_alloc_send_pskb',
        syscall: { name: 'write', fd: 1, bytes: 16_384 },
      }),
    ]);
    expect(r.attach.written.source).toMatch(/^wchar of pid 300 over/);
    expect(r.attach.note).toBeUndefined();
    expect(r.attach.observedMs).toBeGreaterThan(0);
  });

  it('a pid that cannot be attached to is an AttachError with the reason', async () => {
    await expect(attach(999, { source: source(() => null), proc: proc() })).rejects.toThrow(
      new AttachError('no such process: 999'),
    );
  });

  it('syscall refused: says so, and what it costs', async () => {
    const r = await attach(SERVER, {
      watchMs: 600,
      source: source(() => tree(server())),
      proc: proc({ syscall: 'refused' }),
    });
    expect(r.attach.syscallReadable).toBe(false);
    expect(r.attach.note).toContain(SYSCALL_REFUSED_NOTE);
    // A 600 ms window is shorter than the budgets: said too.
    expect(r.attach.note).toContain('the 600 ms window is shorter than the budgets allow for');
  });

  it('gone during the window: server-exited, one process exit', async () => {
    let n = 0;
    let alive = true;
    const src = source(() => {
      n += 1;
      if (n > 2) alive = false;
      return alive ? tree(server({ threads: [] })) : null;
    });
    const r = await attach(SERVER, {
      watchMs: 1200,
      source: src,
      proc: proc({ alive: () => alive }),
    });
    expect(r.findings.map((f) => f.code)).toContain('server-exited');
    expect(r.metrics.processExits).toBe(1);
  });

  it('no process evidence here: the report says why, with no findings', async () => {
    const r = await attach(SERVER, {
      watchMs: 500,
      source: unavailableSource('not on this OS'),
      proc: proc(),
    });
    expect(r.process).toEqual({ available: false, reason: 'not on this OS', samples: 0 });
    expect(r.findings).toEqual([]);
    expect(r.attach.summary).toBe('process evidence is not available here: not on this OS');
  });
});
