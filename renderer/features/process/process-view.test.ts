import { describe, expect, it } from 'vitest';
import { makeFinding, makeProcess, makeProcessSnapshot } from '../../../test/fixtures/host-data';
import {
  compactCommand,
  evidenceLine,
  findingsByPid,
  memoProcessRows,
  processRows,
  stateWord,
  stdioGroups,
  stdioView,
  unavailableText,
} from './process-view';

const blocked = makeProcess({
  pid: 100,
  state: 'S',
  activity: {
    kind: 'writing',
    tid: 100,
    syscall: { nr: 1, name: 'write', fd: 1, bytes: 65536 },
    wchan: 'pipe_write',
    forMs: 3100,
    fdTarget: 'stdout',
  },
});
const child = makeProcess({ pid: 200, ppid: 100, depth: 1, command: 'sh -c yes', state: 'R' });

describe('processRows', () => {
  it('describes each process in words, in tree order', () => {
    const rows = processRows(makeProcessSnapshot(1000, [blocked, child]), []);
    expect(rows.map((r) => [r.pid, r.depth])).toEqual([
      [100, 0],
      [200, 1],
    ]);
    expect(rows[0].activity).toBe('writing stdout (65,536 B), blocked 3.1 s');
    expect(rows[0].stuck).toBe(true);
    expect(rows[0].stateWord).toBe('sleeping');
    expect(rows[1].activity).toBe('idle in its event loop (epoll_wait)');
    expect(rows[1].stuck).toBe(false);
  });

  it('marks the process a finding names as its evidence, with the code', () => {
    const findings = [
      makeFinding({ code: 'server-write-blocked', level: 'error', evidence: { pid: 100 } }),
      makeFinding({ code: 'host-queue-stalled', level: 'warn', evidence: { pid: 100 } }),
      makeFinding({ code: 'stdout-pollution' }),
    ];
    const rows = processRows(makeProcessSnapshot(1000, [blocked, child]), findings);
    expect(rows[0].findings).toEqual(['server-write-blocked', 'host-queue-stalled']);
    expect(rows[0].evidenceLevel).toBe('error');
    expect(rows[1].findings).toEqual([]);
    expect(rows[1].evidenceLevel).toBeNull();
  });

  it('is empty without a sample, and memoized on its inputs', () => {
    expect(processRows(null, [])).toEqual([]);
    const rowsOf = memoProcessRows();
    const s = makeProcessSnapshot(0, [blocked]);
    const f: never[] = [];
    expect(rowsOf(s, f)).toBe(rowsOf(s, f));
    expect(rowsOf(makeProcessSnapshot(0, [blocked]), f)).not.toBe(rowsOf(s, f));
  });
});

describe('words', () => {
  it('names state letters and stdio ends', () => {
    expect(stateWord('D')).toBe('disk wait');
    expect(stateWord('?')).toBe('unknown');
    expect(
      stdioView({
        fd: 1,
        target: 'pipe:[7]',
        nonBlocking: false,
        peer: { pid: 1, command: 'pipescope', note: 'the host reads it' },
      }),
    ).toEqual({
      fd: 1,
      name: 'stdout',
      target: 'pipe:[7]',
      peer: '1 pipescope (the host reads it)',
      nonBlocking: false,
    });
    expect(stdioView({ fd: 0, target: null, nonBlocking: null, peer: null }).target).toBe(
      'closed or unreadable',
    );
  });

  it('shortens a command line: the program by name, long paths by their last parts', () => {
    expect(compactCommand('/usr/bin/node /work/main/dist/demo-servers/srv.js --x /a/b')).toBe(
      'node …/demo-servers/srv.js --x /a/b',
    );
    expect(compactCommand('python3 -u srv.py')).toBe('python3 -u srv.py');
  });

  it('groups adjacent fds whose other end the same process holds', () => {
    const peer = { pid: 1, command: 'pipescope', note: 'its end' };
    const ends = [
      { fd: 0 as const, target: 'socket:[1]', nonBlocking: true, peer },
      { fd: 1 as const, target: 'socket:[2]', nonBlocking: true, peer },
      { fd: 2 as const, target: '/dev/null', nonBlocking: false, peer: null },
    ].map(stdioView);
    const groups = stdioGroups(ends);
    expect(groups.map((g) => [g.ends.map((e) => e.fd), g.peer])).toEqual([
      [[0, 1], '1 pipescope (its end)'],
      [[2], null],
    ]);
  });

  it('says honestly why there is nothing to show', () => {
    expect(unavailableText({ available: true }, false)).toBeNull();
    expect(unavailableText({ available: false, reason: 'no /proc on win32' }, false)).toBe(
      'Process evidence is not available on this platform: no /proc on win32.',
    );
    expect(unavailableText({ available: false, reason: 'old build' }, true)).toMatch(/^This trace/);
  });

  it('puts a finding’s evidence on one line', () => {
    expect(
      evidenceLine({
        pid: 100,
        syscall: { name: 'write', fd: 1, bytes: 1_000_000 },
        state: 'S',
        ms: 3100,
        cpuPercent: 0,
      }),
    ).toBe('pid 100 · write(1, 1,000,000 B) · state S · 3.1 s · 0 % CPU');
    expect(evidenceLine({ pid: 7, wchan: 'do_wait' })).toBe('pid 7 · in do_wait');
    expect(evidenceLine({})).toBeNull();
  });

  it('lists each code once per pid, errors first', () => {
    const byPid = findingsByPid([
      makeFinding({ code: 'server-busy', level: 'warn', evidence: { pid: 1 } }),
      makeFinding({ code: 'server-write-blocked', level: 'error', evidence: { pid: 1 } }),
      makeFinding({ code: 'server-write-blocked', level: 'error', evidence: { pid: 1 } }),
    ]);
    expect(byPid.get(1)?.map((f) => f.code)).toEqual(['server-write-blocked', 'server-busy']);
  });

  it('a finding resolved after the sample shown still marks it; one resolved before does not', () => {
    const resolved = (resolvedAt: number) =>
      makeFinding({
        code: 'subprocess-blocked',
        level: 'error',
        evidence: { pid: 2 },
        active: false,
        resolvedAt,
      });
    expect(findingsByPid([resolved(5000)], 4000).get(2)).toHaveLength(1);
    expect(findingsByPid([resolved(3000)], 4000).get(2)).toBeUndefined();
    expect(findingsByPid([makeFinding({ evidence: { pid: 3 }, active: false })], 1).size).toBe(0);
  });
});
