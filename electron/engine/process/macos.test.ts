import { describe, expect, it } from 'vitest';
import { parsePs, treeFromPs } from './macos.js';
import { MAX_PROCESSES } from './source.js';

/** What `ps -A -o pid=,ppid=,stat=,%cpu=,wchan=,command=` prints on macOS (no header). */
const PS = [
  '    1     0 Ss     0.0 -      /sbin/launchd',
  '  412     1 Ss     0.3 -      /usr/libexec/logd',
  '  900   412 S      1.2 -      /Applications/Claude.app/Contents/MacOS/Claude --type=main',
  ' 5001   900 S+     0.0 -      node /Users/me/My Server/srv.js --port 3000',
  ' 5002  5001 R+    98.5 -      python3 -u worker.py --name "a b"',
  ' 5005  5002 I      0.0 -      /bin/cat',
  ' 5003  5001 S      0.0 semwai /bin/sh -c tail -f /tmp/x.log | grep y',
  ' 5004  5003 U      0.0 -      tail -f /tmp/x.log',
  '',
].join('\n');

describe('parsePs', () => {
  it('reads every row with its command intact (spaces kept) and wchan `-` as null', () => {
    const rows = parsePs(PS);
    expect(rows).toHaveLength(8);
    expect(rows[3]).toEqual({
      pid: 5001,
      ppid: 900,
      state: 'S',
      cpu: 0,
      wchan: null,
      command: 'node /Users/me/My Server/srv.js --port 3000',
    });
    expect(rows[4]).toEqual({
      pid: 5002,
      ppid: 5001,
      state: 'R',
      cpu: 98.5,
      wchan: null,
      command: 'python3 -u worker.py --name "a b"',
    });
    expect(rows[6]).toMatchObject({
      pid: 5003,
      wchan: 'semwai',
      command: expect.stringMatching(/\| grep y$/),
    });
  });

  it('skips lines that are not rows (a header, blank lines, garbage)', () => {
    const rows = parsePs(`  PID  PPID STAT  %CPU WCHAN  COMMAND\n\nnot a row\n${PS}`);
    expect(rows.map((r) => r.pid)).toEqual([1, 412, 900, 5001, 5002, 5005, 5003, 5004]);
  });

  it('cuts a command to 200 characters', () => {
    const rows = parsePs(` 7 1 S 0.0 - ${'x'.repeat(300)}`);
    expect(rows[0].command).toHaveLength(200);
  });
});

describe('treeFromPs', () => {
  const rows = parsePs(PS);

  it('lists the root first, then depth-first, each child right after its parent', () => {
    const tree = treeFromPs(rows, 5001);
    expect(tree?.rootPid).toBe(5001);
    expect(tree?.processes.map((p) => [p.pid, p.depth])).toEqual([
      [5001, 0],
      [5002, 1],
      [5005, 2],
      [5003, 1],
      [5004, 2],
    ]);
    expect(tree?.omitted).toBe(0);
  });

  it('maps ps states: I (idle) reads as S, U (uninterruptible) as D; R is running', () => {
    const tree = treeFromPs(rows, 5001);
    const by = new Map(tree?.processes.map((p) => [p.pid, p]));
    expect(by.get(5005)?.state).toBe('S');
    expect(by.get(5005)?.threads[0].state).toBe('S');
    expect(by.get(5004)?.state).toBe('D');
    expect(by.get(5002)?.state).toBe('R');
    expect(by.get(5002)?.threads[0].syscall).toBe('running');
    expect(by.get(5001)?.threads[0].syscall).toBeNull();
  });

  it('gives what ps has and null for what it does not (no CPU time, bytes or fds)', () => {
    const p = treeFromPs(rows, 5001)?.processes.find((x) => x.pid === 5002);
    expect(p).toMatchObject({
      ppid: 5001,
      command: 'python3 -u worker.py --name "a b"',
      cpuMs: null,
      cpuPercent: 98.5,
      writtenBytes: null,
      readBytes: null,
      threadCount: 1,
      stdio: [],
    });
    const wchan = treeFromPs(rows, 5001)?.processes.find((x) => x.pid === 5003)?.threads[0];
    expect(wchan).toMatchObject({ tid: 5003, wchan: 'semwai', callKey: null, fdTarget: null });
  });

  it('gives null when the root is not in the list', () => {
    expect(treeFromPs(rows, 77777)).toBeNull();
  });

  it(`samples at most ${MAX_PROCESSES} processes and counts the rest as omitted`, () => {
    const many = [' 100 1 S 0.0 - root-proc'];
    for (let i = 0; i < 70; i++) many.push(` ${1000 + i} 100 S 0.0 - child ${i}`);
    const tree = treeFromPs(parsePs(many.join('\n')), 100);
    expect(tree?.processes).toHaveLength(MAX_PROCESSES);
    expect(tree?.omitted).toBe(71 - MAX_PROCESSES);
    expect(tree?.processes[0].pid).toBe(100);
    expect(tree?.processes[1].pid).toBe(1000);
  });
});
