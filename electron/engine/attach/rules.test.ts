import { describe, expect, it } from 'vitest';
import type { ProcessSample, StdioEnd } from '../../../shared/process.js';
import { DEFAULT_BUDGETS } from '../../../shared/session-options.js';
import {
  activity,
  CHILD,
  EPOLL,
  proc,
  READ0,
  ROOT,
  snap,
  WRITE1,
} from '../../../test/fixtures/process-rules.js';
import type { OneProcess } from './proc.js';
import { type AttachInput, attachFindings, needMs } from './rules.js';
import type { AttachStdio } from './types.js';

const HOST = 4000;
const HOST_CMD = 'node host.js';
const OUT = 'socket:[11]';

function link(fd: 0 | 1 | 2, target: string, o: Partial<AttachStdio> = {}): AttachStdio {
  return {
    fd,
    kind: target.startsWith('pipe') ? 'pipe' : 'socket',
    target,
    inode: Number(/\d+/.exec(target)?.[0]),
    peer: { pid: HOST, command: HOST_CMD, fd: 21, how: 'holds the other end' },
    unread: null,
    ...o,
  };
}

const hostEnd: StdioEnd['peer'] = { pid: HOST, command: HOST_CMD, note: 'the host' };

function rootStdio(nonBlocking = false): ProcessSample['stdio'] {
  return [
    { fd: 0, target: 'socket:[10]', nonBlocking: false, peer: hostEnd },
    { fd: 1, target: OUT, nonBlocking, peer: hostEnd },
  ];
}

/** The server in write(1, 65,536 B) for `forMs`, nothing written. */
function writing(forMs: number, over: Partial<ProcessSample> = {}): ProcessSample {
  return proc({
    writtenBytes: 500,
    activity: activity('writing', {
      syscall: WRITE1,
      wchan: 'sock_alloc_send_pskb',
      forMs,
      fdTarget: OUT,
    }),
    stdio: rootStdio(),
    ...over,
  });
}

function hostAt(t: number, readBytes: number | null = 100): { t: number; p: OneProcess } {
  return {
    t,
    p: {
      pid: HOST,
      state: 'S',
      cpuMs: 10,
      readBytes,
      activity: activity('event-loop', { tid: HOST, syscall: EPOLL }),
    },
  };
}

/** A 1.5 s window sampled every 500 ms, the server as `at(t)` says. */
function input(at: (t: number) => ProcessSample[], over: Partial<AttachInput> = {}): AttachInput {
  const times = [0, 500, 1000, 1500];
  return {
    snapshots: times.map((t) => snap(t, ...at(t))),
    stdio: [link(0, 'socket:[10]'), link(1, OUT)],
    host: { pid: HOST, command: HOST_CMD, how: 'reads its stdout' },
    hostSeen: times.map((t) => hostAt(t)),
    syscall: 'readable',
    watchMs: 1500,
    budgets: DEFAULT_BUDGETS,
    goneAt: null,
    ...over,
  };
}

const codes = (i: AttachInput) => attachFindings(i).findings.map((f) => f.code);

describe('attach rules: the server blocked writing stdout to a host that does not read', () => {
  it('names the write and the host: server-write-blocked and host-not-reading', () => {
    const v = attachFindings(input((t) => [writing(t)]));
    expect(v.findings.map((f) => f.code)).toEqual(['server-write-blocked', 'host-not-reading']);
    const [blocked, host] = v.findings;
    expect(blocked.level).toBe('error');
    expect(blocked.message).toContain(
      'pid 5000 (python3 srv.py) has been blocked in write(1, 65,536 B) for ≥ 1.5 s',
    );
    expect(blocked.message).toContain(
      `its reader, the host (pid ${HOST}, ${HOST_CMD}), does not drain it`,
    );
    expect(blocked.evidence).toMatchObject({
      pid: ROOT,
      syscall: { name: 'write', fd: 1, bytes: 65_536 },
      ms: 1500,
      pipe: OUT,
      reader: { pid: HOST, command: HOST_CMD },
      proven: true,
    });
    expect(host.level).toBe('error');
    expect(host.message).toContain(
      `the host, pid ${HOST} (${HOST_CMD}), has not read the server's stdout (${OUT}) for ≥ 1.5 s`,
    );
    expect(host.message).toContain('it has read nothing at all for 1.5 s');
    expect(host.message).toContain('the host is idle in its event loop (epoll_wait)');
    expect(host.message).toContain('The server (pid 5000) waits in write(1, 65,536 B) behind it');
    expect(host.evidence).toMatchObject({
      pid: HOST,
      command: HOST_CMD,
      state: 'S',
      ms: 1500,
      server: { pid: ROOT, syscall: { name: 'write', fd: 1 } },
    });
    expect(v.summary).toBe(
      `pid ${ROOT} (python3 srv.py): blocked writing its stdout: the host (pid ${HOST}) is not reading it`,
    );
  });

  it('a write shorter than the budget is not a block', () => {
    expect(codes(input((t) => [writing(Math.max(0, t - 900))]))).toEqual([]);
  });

  it('a write whose reader /proc cannot name blocks the server, but names no host', () => {
    const i = input((t) => [writing(t)], {
      host: null,
      stdio: [link(1, OUT, { peer: null })],
    });
    const v = attachFindings(i);
    expect(v.findings.map((f) => f.code)).toEqual(['server-write-blocked']);
    expect(v.findings[0].message).toContain('no process /proc and ss can see holds its other end');
    expect(v.summary).toContain('nobody reads it');
  });

  it('without the syscall (no ptrace rights): inferred from wchan and no byte written, said as likely', () => {
    const asleep = () =>
      proc({
        writtenBytes: 500,
        stdio: rootStdio(),
        activity: activity('sleeping', { wchan: 'pipe_write' }),
      });
    const v = attachFindings(input(() => [asleep()], { syscall: 'refused' }));
    expect(v.findings.map((f) => f.code)).toEqual(['server-write-blocked', 'host-not-reading']);
    expect(v.findings[0].message).toContain('is likely blocked writing its stdout');
    expect(v.findings[0].message).toContain('/proc/5000/syscall is not readable');
    expect(v.findings[0].evidence?.proven).toBe(false);
    expect(v.findings[1].message).toContain('likely waits in a write behind it');
  });

  it('asleep in pipe_write while bytes go out is not a block', () => {
    const asleep = (t: number) =>
      proc({
        writtenBytes: 500 + t,
        stdio: rootStdio(),
        activity: activity('sleeping', { wchan: 'pipe_write' }),
      });
    expect(codes(input((t) => [asleep(t)], { syscall: 'refused' }))).toEqual([]);
  });

  it('a non-blocking stdout: bytes unread at the host the whole window are the host not reading', () => {
    const idle = () =>
      proc({ stdio: rootStdio(true), activity: activity('event-loop', { syscall: EPOLL }) });
    const i = input(() => [idle()], {
      stdio: [link(1, OUT, { unread: { start: 147_456, end: 147_456 } })],
      hostSeen: [hostAt(0, 100), hostAt(1500, 900)],
    });
    const v = attachFindings(i);
    expect(v.findings.map((f) => f.code)).toEqual(['host-not-reading']);
    expect(v.findings[0].message).toContain(
      '147,456 B wait unread at its end of the socket, unchanged over 1.5 s',
    );
    expect(v.findings[0].message).not.toContain('read nothing at all');
    expect(v.findings[0].message).toContain("The server's stdout is non-blocking");
    expect(v.findings[0].evidence).toMatchObject({ pid: HOST, unreadBytes: 147_456 });
    // Idle, but not waiting for a request: its output waits for the host.
    expect(v.summary).toBe(
      `pid ${ROOT} (python3 srv.py): idle in its event loop (epoll_wait), 0 % CPU: 147,456 B of its stdout wait unread at the host's end`,
    );
  });

  it('bytes that the host takes during the window are not a stall', () => {
    const idle = () =>
      proc({ stdio: rootStdio(true), activity: activity('event-loop', { syscall: EPOLL }) });
    const i = input(() => [idle()], {
      stdio: [link(1, OUT, { unread: { start: 147_456, end: 4096 } })],
    });
    expect(codes(i)).toEqual([]);
  });
});

describe('attach rules: the rest of the tree, the CPU, the end', () => {
  it('a child blocked writing a pipe the server does not read: subprocess-blocked', () => {
    const child = proc({
      pid: CHILD,
      activity: activity('writing', {
        tid: CHILD,
        syscall: WRITE1,
        forMs: 1500,
        fdTarget: 'pipe:[77]',
      }),
      stdio: [
        {
          fd: 1,
          target: 'pipe:[77]',
          nonBlocking: false,
          peer: { pid: ROOT, command: 'python3 srv.py', note: '' },
        },
      ],
    });
    const root = proc({
      readBytes: 65_536,
      stdio: rootStdio(),
      activity: activity('waiting-child'),
    });
    const v = attachFindings(input(() => [root, child]));
    expect(v.findings.map((f) => f.code)).toEqual(['subprocess-blocked']);
    expect(v.findings[0].message).toContain(
      `child ${CHILD} (sh -c worker) of the server has been blocked in write(1, 65,536 B) for ≥ 1.5 s on pipe:[77]`,
    );
    expect(v.findings[0].message).toContain(
      `whose read end the server (pid ${ROOT}) holds and does not read`,
    );
    expect(v.findings[0].evidence).toMatchObject({
      pid: CHILD,
      pipe: 'pipe:[77]',
      server: { pid: ROOT },
    });
  });

  it("a child writing the server's stdout is the host's block, not the server's child's", () => {
    const child = proc({
      pid: CHILD,
      activity: activity('writing', { tid: CHILD, syscall: WRITE1, forMs: 1500, fdTarget: OUT }),
      stdio: [{ fd: 1, target: OUT, nonBlocking: false, peer: hostEnd }],
    });
    const root = proc({ stdio: rootStdio(), activity: activity('waiting-child') });
    const v = attachFindings(input(() => [root, child]));
    expect(v.findings.map((f) => f.code)).toEqual(['server-write-blocked', 'host-not-reading']);
    expect(v.findings[0].message).toContain(`pid ${CHILD}, under the server,`);
  });

  it('on CPU the whole window with nothing written: server-busy; writing meanwhile: not', () => {
    const busy = (t: number, written = 0) =>
      proc({
        cpuMs: t * 0.95,
        cpuPercent: 95,
        writtenBytes: written,
        activity: activity('running'),
      });
    const v = attachFindings(input((t) => [busy(t)]));
    expect(v.findings.map((f) => f.code)).toEqual(['server-busy']);
    expect(v.findings[0].level).toBe('warn');
    expect(v.findings[0].message).toContain(
      'was on CPU (95 % of a core on average) for the whole 1.5 s watched and wrote nothing',
    );
    expect(codes(input((t) => [busy(t, t)]))).toEqual([]);
    expect(codes(input((t) => [proc({ cpuMs: t * 0.3, activity: activity('running') })]))).toEqual(
      [],
    );
  });

  it('idle in read(0): no finding, and the summary says it waits for the next request', () => {
    const idle = proc({
      stdio: rootStdio(),
      activity: activity('reading', { syscall: READ0, wchan: 'pipe_read', forMs: 1500 }),
    });
    const v = attachFindings(input(() => [idle]));
    expect(v.findings).toEqual([]);
    expect(v.summary).toBe(
      `pid ${ROOT} (python3 srv.py): idle in read(0, 8,192 B), 0 % CPU: waiting for the host's next request`,
    );
  });

  it('idle in its event loop: the same, in its words', () => {
    const idle = proc({ stdio: rootStdio(), activity: activity('event-loop', { syscall: EPOLL }) });
    expect(attachFindings(input(() => [idle])).summary).toContain(
      "idle in its event loop (epoll_wait), 0 % CPU: waiting to read the host's next request",
    );
  });

  it('a long command is cut with an ellipsis, not mid-word without a sign', () => {
    const command = `node ${'/very/long/path'.repeat(8)}/server.js`;
    const idle = proc({ command, activity: activity('event-loop', { syscall: EPOLL }) });
    const v = attachFindings(input(() => [idle]));
    expect(v.summary).toContain(`(${command.slice(0, 59)}…)`);
  });

  it('gone during the window: server-exited', () => {
    const v = attachFindings(input(() => [proc({ stdio: rootStdio() })], { goneAt: 1500 }));
    expect(v.findings.map((f) => f.code)).toEqual(['server-exited']);
    expect(v.summary).toContain('exited during the watch window');
  });

  it("the host's bytes unread in the server's stdin the whole window: stdin-blocked", () => {
    const i = input(
      () => [proc({ cpuMs: 0, stdio: rootStdio(), activity: activity('sleeping') })],
      {
        stdio: [link(0, 'socket:[10]', { unread: { start: 9000, end: 9000 } }), link(1, OUT)],
      },
    );
    const v = attachFindings(i);
    expect(v.findings.map((f) => f.code)).toEqual(['stdin-blocked']);
    expect(v.findings[0].message).toContain(
      `9,000 B from pid ${HOST} (${HOST_CMD}) wait unread in the server's stdin`,
    );
  });

  it('no samples: no findings, and says so', () => {
    expect(attachFindings(input(() => [], { snapshots: [] }))).toEqual({
      findings: [],
      summary: 'no sample of the process could be taken',
    });
  });

  it('a window shorter than a budget asks for less, never more than the budget', () => {
    expect(needMs(1000, 2000)).toBe(1000);
    expect(needMs(1000, 800)).toBe(600);
    expect(needMs(2000, 2000)).toBe(1500);
  });
});
