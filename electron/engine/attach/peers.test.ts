import { describe, expect, it } from 'vitest';
import type { ProcessSnapshot } from '../../../shared/process.js';
import type { Holder } from '../process/source.js';
import { ancestorsOf, hostOf, inodeOf, resolveStdio, stdioKind, withPeers } from './peers.js';
import { type AttachProc, parseUnixSockets, type SocketTable } from './proc.js';

const SERVER = 300;
const HOST = 200;
const INIT = 1;

/** A process table: pid → parent, command, and each fd's link with its access mode. */
interface Row {
  ppid: number;
  command: string;
  fds?: Record<number, { link: string; mode: Holder['mode'] }>;
}

function fakeProc(rows: Record<number, Row>): AttachProc {
  return {
    check: (pid) => (rows[pid] ? { ok: true } : { ok: false, reason: `no such process: ${pid}` }),
    parentOf: (pid) => rows[pid]?.ppid ?? null,
    commandOf: (pid) => rows[pid]?.command ?? null,
    argvOf: (pid) => rows[pid]?.command.split(' ') ?? null,
    stdioOf: (pid) => [0, 1, 2].map((fd) => rows[pid]?.fds?.[fd]?.link ?? null),
    allPids: () => Object.keys(rows).map(Number),
    syscallAccess: () => 'readable',
    one: () => null,
    unixSockets: () => Promise.resolve(null),
  };
}

function holdersIn(rows: Record<number, Row>) {
  const asked: number[][] = [];
  const holders = (target: string, pids: readonly number[]): Promise<Holder[]> => {
    asked.push([...pids]);
    const out: Holder[] = [];
    for (const pid of pids) {
      for (const [fd, f] of Object.entries(rows[pid]?.fds ?? {})) {
        if (f.link === target) out.push({ pid, fd: Number(fd), mode: f.mode });
      }
    }
    return Promise.resolve(out);
  };
  return { holders, asked };
}

const pipes: Record<number, Row> = {
  [INIT]: { ppid: 0, command: 'init' },
  [HOST]: {
    ppid: INIT,
    command: 'python3 host.py',
    fds: {
      4: { link: 'pipe:[10]', mode: 'write' },
      5: { link: 'pipe:[11]', mode: 'read' },
    },
  },
  [SERVER]: {
    ppid: HOST,
    command: 'node srv.js',
    fds: {
      0: { link: 'pipe:[10]', mode: 'read' },
      1: { link: 'pipe:[11]', mode: 'write' },
      2: { link: '/tmp/log.txt', mode: 'write' },
    },
  },
  // A stranger holding the stdout pipe's write end too (inherited): never the reader.
  400: { ppid: INIT, command: 'sleep 100', fds: { 1: { link: 'pipe:[11]', mode: 'write' } } },
};

describe('peers: what an fd is', () => {
  it('kinds and inodes from /proc links', () => {
    expect(stdioKind('pipe:[12]')).toBe('pipe');
    expect(stdioKind('socket:[12]')).toBe('socket');
    expect(stdioKind('/dev/pts/3')).toBe('tty');
    expect(stdioKind('/dev/null')).toBe('null');
    expect(stdioKind('/var/log/x.log')).toBe('file');
    expect(stdioKind('anon_inode:[eventfd]')).toBe('other');
    expect(stdioKind(null)).toBe('unknown');
    expect(inodeOf('socket:[853089]')).toBe(853089);
    expect(inodeOf('/dev/null')).toBeNull();
  });

  it('ss -xn: each socket with its peer and queues, paths and headers skipped', () => {
    const table = parseUnixSockets(
      [
        'Netid State Recv-Q Send-Q Local Address:Port Peer Address:Port Process',
        'u_str ESTAB 153728 0                  * 853520            * 853521       ',
        'u_str ESTAB 0      185600             * 853521            * 853520       ',
        'u_str ESTAB 0 0 /run/dbus/system_bus_socket 2001 * 2000',
        'garbage',
      ].join('\n'),
    );
    expect(table.get(853520)).toEqual({ recvQ: 153_728, sendQ: 0, peer: 853521 });
    expect(table.get(853521)).toEqual({ recvQ: 0, sendQ: 185_600, peer: 853520 });
    expect(table.get(2001)?.peer).toBe(2000);
    expect(table.size).toBe(3);
  });

  it('ancestors, nearest first, bounded and loop-safe', () => {
    expect(ancestorsOf(SERVER, fakeProc(pipes))).toEqual([HOST, INIT]);
    const loop = fakeProc({ 1: { ppid: 2, command: 'a' }, 2: { ppid: 1, command: 'b' } });
    expect(ancestorsOf(1, loop)).toEqual([2, 1]);
  });
});

describe('peers: who holds the other end', () => {
  it('a pipe: the ancestor holding the opposite end (the host), found among ancestors first', async () => {
    const { holders, asked } = holdersIn(pipes);
    const stdio = await resolveStdio(SERVER, ['pipe:[10]', 'pipe:[11]', '/tmp/log.txt'], {
      proc: fakeProc(pipes),
      holders,
      tree: new Set([SERVER]),
      sockets: null,
    });
    expect(stdio.map((s) => [s.fd, s.kind, s.peer?.pid ?? null])).toEqual([
      [0, 'pipe', HOST],
      [1, 'pipe', HOST],
      [2, 'file', null],
    ]);
    expect(stdio[1].peer).toEqual({
      pid: HOST,
      command: 'python3 host.py',
      fd: 5,
      how: 'holds the read end of pipe:[11] as fd 5',
    });
    expect(stdio[0].peer?.how).toBe('holds the write end of pipe:[10] as fd 4');
    // Found in the ancestors: every process was never scanned.
    expect(asked.every((pids) => !pids.includes(400))).toBe(true);
    expect(hostOf(stdio)).toMatchObject({
      pid: HOST,
      how: expect.stringMatching(/^reads its stdout: /),
    });
  });

  it("the server's own tree is never the other end, and a reader outside the ancestry is found by scanning all", async () => {
    const rows: Record<number, Row> = {
      ...pipes,
      [HOST]: { ppid: INIT, command: 'sh -c srv' },
      500: {
        ppid: INIT,
        command: 'node reader.js',
        fds: { 9: { link: 'pipe:[11]', mode: 'read' } },
      },
      // A child of the server with the read end (it would be the tree's own pipe): skipped.
      301: { ppid: SERVER, command: 'cat', fds: { 0: { link: 'pipe:[11]', mode: 'read' } } },
    };
    const { holders } = holdersIn(rows);
    const stdio = await resolveStdio(SERVER, [null, 'pipe:[11]', null], {
      proc: fakeProc(rows),
      holders,
      tree: new Set([SERVER, 301]),
      sockets: null,
    });
    expect(stdio[1].peer?.pid).toBe(500);
    expect(stdio[0]).toMatchObject({ kind: 'unknown', peer: null });
  });

  it("a socket: the holder of its peer's inode (ss), with the bytes queued at the reader's end", async () => {
    const rows: Record<number, Row> = {
      [INIT]: { ppid: 0, command: 'init' },
      [HOST]: {
        ppid: INIT,
        command: 'node host.js',
        fds: {
          19: { link: 'socket:[20]', mode: 'read-write' },
          21: { link: 'socket:[22]', mode: 'read-write' },
        },
      },
    };
    const sockets: SocketTable = new Map([
      [21, { peer: 20, recvQ: 0, sendQ: 0 }],
      [20, { peer: 21, recvQ: 0, sendQ: 0 }],
      [23, { peer: 22, recvQ: 0, sendQ: 185_600 }],
      [22, { peer: 23, recvQ: 153_728, sendQ: 0 }],
    ]);
    const { holders } = holdersIn(rows);
    const stdio = await resolveStdio(SERVER, ['socket:[21]', 'socket:[23]', '/dev/null'], {
      proc: fakeProc({ ...rows, [SERVER]: { ppid: HOST, command: 'node srv.js' } }),
      holders,
      tree: new Set([SERVER]),
      sockets,
    });
    expect(stdio[1]).toMatchObject({
      kind: 'socket',
      inode: 23,
      peer: { pid: HOST, fd: 21, how: 'holds the other end, socket:[22] (ss), as fd 21' },
      unread: { start: 153_728, end: 153_728 },
    });
    expect(stdio[0]).toMatchObject({ peer: { pid: HOST, fd: 19 }, unread: { start: 0, end: 0 } });
  });

  it('a socket without ss: the ancestor holding the inode next to it, said as a guess', async () => {
    const rows: Record<number, Row> = {
      [HOST]: {
        ppid: INIT,
        command: 'node host.js',
        fds: { 21: { link: 'socket:[22]', mode: 'read-write' } },
      },
      [SERVER]: { ppid: HOST, command: 'node srv.js' },
    };
    const { holders } = holdersIn(rows);
    const stdio = await resolveStdio(SERVER, [null, 'socket:[23]', null], {
      proc: fakeProc(rows),
      holders,
      tree: new Set([SERVER]),
      sockets: null,
    });
    expect(stdio[1].peer?.pid).toBe(HOST);
    expect(stdio[1].peer?.how).toMatch(/^likely: holds socket:\[22\], the inode next to it/);
    expect(stdio[1].unread).toBeNull();
  });
});

describe('peers: the snapshot with the host filled in', () => {
  it("every process sharing one of the server's stdio ends names the host; others are kept", () => {
    const end = (target: string) => ({ fd: 1 as const, target, nonBlocking: false, peer: null });
    const sample = (pid: number, target: string) => ({
      pid,
      ppid: SERVER,
      command: 'x',
      state: 'S',
      cpuPercent: 0,
      cpuMs: 0,
      writtenBytes: 0,
      writeRate: 0,
      threadCount: 1,
      threads: [],
      activity: {
        kind: 'sleeping' as const,
        tid: pid,
        syscall: null,
        wchan: null,
        forMs: null,
        fdTarget: null,
      },
      stdio: [end(target)],
      depth: pid === SERVER ? 0 : 1,
    });
    const snap: ProcessSnapshot = {
      t: 0,
      rootPid: SERVER,
      processes: [
        sample(SERVER, 'socket:[23]'),
        sample(301, 'socket:[23]'),
        sample(302, 'socket:[40]'),
      ],
      omitted: 0,
    };
    const stdio = [
      {
        fd: 1 as const,
        kind: 'socket' as const,
        target: 'socket:[23]',
        inode: 23,
        peer: { pid: HOST, command: 'node host.js', fd: 21, how: 'holds the other end' },
        unread: null,
      },
    ];
    const filled = withPeers(snap, stdio, (t) =>
      t === 'socket:[40]'
        ? { pid: SERVER, command: 'node srv.js', note: 'holds socket:[41] (ss)' }
        : undefined,
    );
    expect(filled.processes[0].stdio[0].peer).toEqual({
      pid: HOST,
      command: 'node host.js',
      note: "the server's stdout: holds the other end",
    });
    expect(filled.processes[1].stdio[0].peer?.pid).toBe(HOST);
    expect(filled.processes[2].stdio[0].peer?.pid).toBe(SERVER);
    expect(snap.processes[0].stdio[0].peer).toBeNull(); // the input is not changed
  });
});
