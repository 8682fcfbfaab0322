import { describe, expect, it } from 'vitest';
import type { SyscallInfo } from '../../../shared/process.js';
import { activityOf, type TimedThread } from './activity.js';

const PID = 100;

function call(name: string, nr: number, fd: number | null = null, bytes: number | null = null) {
  return { nr, name, fd, bytes } satisfies SyscallInfo;
}

function thread(tid: number, over: Partial<TimedThread> = {}): TimedThread {
  return {
    tid,
    state: 'S',
    wchan: null,
    syscall: null,
    callKey: null,
    fdTarget: null,
    forMs: null,
    ...over,
  };
}

const epollMain = thread(PID, { syscall: call('epoll_wait', 232), wchan: 'ep_poll', forMs: 900 });
const futex = (tid: number) => thread(tid, { syscall: call('futex', 202), wchan: 'futex_wait' });

describe('activityOf: the most telling thread', () => {
  it('a thread blocked writing beats the main thread idle in epoll_wait', () => {
    const writer = thread(103, {
      syscall: call('write', 1, 1, 65_536),
      wchan: 'pipe_write',
      forMs: 1500,
      fdTarget: 'pipe:[77]',
    });
    const a = activityOf(PID, [epollMain, futex(101), writer, futex(102)], 'S', 0);
    expect(a).toEqual({
      kind: 'writing',
      tid: 103,
      syscall: { nr: 1, name: 'write', fd: 1, bytes: 65_536 },
      wchan: 'pipe_write',
      forMs: 1500,
      fdTarget: 'pipe:[77]',
    });
  });

  it('the main thread idle in epoll_wait beats helpers on futexes', () => {
    const a = activityOf(PID, [futex(101), epollMain, futex(102)], 'S', 0);
    expect(a.kind).toBe('event-loop');
    expect(a.tid).toBe(PID);
    expect(a.wchan).toBe('ep_poll');
    expect(a.forMs).toBe(900);
  });

  it('the main thread reading fd 0 beats futex helpers', () => {
    const reader = thread(PID, {
      syscall: call('read', 0, 0, 8192),
      wchan: 'pipe_read',
      forMs: 3000,
      fdTarget: 'pipe:[10]',
    });
    const a = activityOf(PID, [futex(101), futex(102), reader], 'S', 0.4);
    expect(a).toMatchObject({
      kind: 'reading',
      tid: PID,
      syscall: { name: 'read', fd: 0, bytes: 8192 },
      forMs: 3000,
    });
  });

  it('the main thread wins a tie of kinds', () => {
    const helperRead = thread(101, { syscall: call('read', 0, 5, 10) });
    const mainRead = thread(PID, { syscall: call('read', 0, 0, 8192) });
    expect(activityOf(PID, [helperRead, mainRead], 'S', 0).tid).toBe(PID);
    // …but not a more telling kind on another thread.
    const waiter = thread(101, { syscall: call('wait4', 61) });
    expect(activityOf(PID, [mainRead, waiter], 'S', 0)).toMatchObject({
      kind: 'waiting-child',
      tid: 101,
    });
  });

  it('a thread in state R or with a syscall of `running` is running', () => {
    expect(activityOf(PID, [futex(101), thread(PID, { state: 'R' })], 'R', null).kind).toBe(
      'running',
    );
    expect(activityOf(PID, [thread(PID, { syscall: 'running' })], 'S', null).syscall).toBeNull();
  });

  it('futex, nanosleep, an unknown call or no call at all in S/D are asleep', () => {
    expect(activityOf(PID, [futex(PID)], 'S', 0).kind).toBe('sleeping');
    expect(
      activityOf(
        PID,
        [thread(PID, { syscall: { nr: 999, name: null, fd: null, bytes: null } })],
        'S',
        0,
      ).kind,
    ).toBe('sleeping');
    expect(
      activityOf(PID, [thread(PID, { state: 'D', wchan: 'io_schedule' })], 'D', 0),
    ).toMatchObject({
      kind: 'sleeping',
      wchan: 'io_schedule',
    });
    expect(activityOf(PID, [thread(PID, { state: 'I' })], 'I', 0).kind).toBe('unknown');
  });

  it('a stopped thread says stopped', () => {
    expect(activityOf(PID, [epollMain, thread(101, { state: 't' })], 'S', 0).kind).toBe('stopped');
  });
});

describe('activityOf: CPU decides busy', () => {
  it('at ≥ 50 % of a core the process is running whatever its threads sat in', () => {
    const a = activityOf(PID, [epollMain, futex(101)], 'S', 50);
    expect(a).toEqual({
      kind: 'running',
      tid: PID,
      syscall: null,
      wchan: null,
      forMs: null,
      fdTarget: null,
    });
    // A main thread reading stdin on a busy process: a helper is working.
    const reader = thread(PID, { syscall: call('read', 0, 0, 8192) });
    expect(activityOf(PID, [reader, futex(101)], 'S', 97).kind).toBe('running');
  });

  it('just under 50 % the threads decide', () => {
    expect(activityOf(PID, [epollMain, futex(101)], 'S', 49.9).kind).toBe('event-loop');
  });

  it('a write beats CPU: a process blocked writing is writing', () => {
    const writer = thread(101, { syscall: call('write', 1, 1, 100), forMs: 0 });
    expect(activityOf(PID, [epollMain, writer], 'S', 95)).toMatchObject({
      kind: 'writing',
      tid: 101,
    });
  });

  it('with no threads read, a busy process is running on its pid', () => {
    expect(activityOf(PID, [], 'R', 80)).toMatchObject({ kind: 'running', tid: PID });
  });
});

describe('activityOf: zombies and unknowns', () => {
  it('a zombie (no threads, state Z) is a zombie, even with CPU left in its window', () => {
    expect(activityOf(PID, [], 'Z', null)).toMatchObject({ kind: 'zombie', tid: PID });
    expect(activityOf(PID, [], 'Z', 0).kind).toBe('zombie');
    expect(activityOf(PID, [thread(PID, { state: 'Z' })], 'Z', 90).kind).toBe('zombie');
  });

  it('no threads read and not a zombie: unknown', () => {
    expect(activityOf(PID, [], 'S', 0)).toMatchObject({ kind: 'unknown', syscall: null });
  });
});
