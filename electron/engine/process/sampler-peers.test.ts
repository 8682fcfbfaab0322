/** The process sampler's view of stdio (who holds the other end) and the snapshot it gives. */
import { describe, expect, it } from 'vitest';
import {
  CHILD,
  inCall,
  make,
  proc,
  ROOT,
  run,
  thread,
  tree,
  withFakeClock,
  write,
} from '../../../test/fixtures/sampler-harness.js';
import type { Holder } from './source.js';

withFakeClock();

describe('ProcessSampler: stdio peers', () => {
  const rootStdio = [
    { fd: 0 as const, target: 'pipe:[10]', nonBlocking: false },
    { fd: 1 as const, target: 'pipe:[11]', nonBlocking: true },
    { fd: 2 as const, target: 'pipe:[12]', nonBlocking: false },
  ];

  it("names the root's stdio at the first sample as Pipescope's end", async () => {
    const h = make([tree(proc(ROOT, { stdio: rootStdio }))]);
    h.sampler.start(ROOT);
    await run(0);
    const stdio = h.snaps[0].processes[0].stdio;
    expect(stdio).toHaveLength(3);
    for (const s of stdio) {
      expect(s.peer).toEqual({
        pid: process.pid,
        command: 'pipescope',
        note: "Pipescope's end: it spawned the server on this",
      });
    }
    expect(stdio[1]).toMatchObject({ fd: 1, target: 'pipe:[11]', nonBlocking: true });
    expect(h.holders).not.toHaveBeenCalled();
    h.sampler.stop();
  });

  it("a root some other host started (attach): its ends are looked up, never called Pipescope's", async () => {
    const held = (target: string): Holder[] =>
      target === 'pipe:[11]' ? [{ pid: 4242, fd: 9, mode: 'read' }] : [];
    const h = make([tree(proc(ROOT, { stdio: rootStdio }))], held, false);
    h.sampler.start(ROOT);
    await run(0);
    const [, out, err] = h.snaps[0].processes[0].stdio;
    expect(out.peer).toMatchObject({ pid: 4242, note: 'holds the read end as fd 9' });
    expect(err.peer).toBeNull();
    expect(h.holders).toHaveBeenCalledTimes(3);
    h.sampler.stop();
  });

  it("a child sharing the server's stdout names it as the server's stdout", async () => {
    const child = proc(CHILD, {
      stdio: [
        { fd: 0, target: '/dev/null', nonBlocking: false },
        { fd: 1, target: 'pipe:[11]', nonBlocking: false },
        { fd: 2, target: 'pipe:[12]', nonBlocking: false },
      ],
    });
    const h = make([tree(proc(ROOT, { stdio: rootStdio }), child)]);
    h.sampler.start(ROOT);
    await run(0);
    const [devnull, out, err] = h.snaps[0].processes[1].stdio;
    expect(devnull.peer).toBeNull();
    expect(out.peer).toEqual({
      pid: process.pid,
      command: 'pipescope',
      note: "the server's stdout: Pipescope's end",
    });
    expect(err.peer?.note).toBe("the server's stderr: Pipescope's end");
    h.sampler.stop();
  });

  it("a child's own pipe asks holders() and names the read end's pid", async () => {
    const child = proc(CHILD, {
      threads: [inCall(CHILD, write(1, 65_536), 'W')],
      stdio: [{ fd: 1, target: 'pipe:[99]', nonBlocking: false }],
    });
    const script = [tree(proc(ROOT, { stdio: rootStdio }), child)];
    const h = make(script, (target) =>
      target === 'pipe:[99]'
        ? [
            { pid: CHILD, fd: 1, mode: 'write' },
            { pid: ROOT, fd: 5, mode: 'read' },
          ]
        : [],
    );
    h.sampler.start(ROOT);
    await run(2500);
    expect(h.holders).toHaveBeenCalledWith('pipe:[99]', [ROOT, CHILD, process.pid]);
    const last = h.snaps.at(-1);
    expect(last?.processes[1].stdio[0].peer).toEqual({
      pid: ROOT,
      command: 'python3 srv.py',
      note: 'holds the read end as fd 5',
    });
    // Named from the first sample on (the holder's command is the tree's being sampled).
    expect(h.snaps[0]?.processes[1].stdio[0].peer?.command).toBe('python3 srv.py');
    // Cached for 2 s: looked up at t=0 and again at t=2000, not at every sample.
    expect(h.snaps).toHaveLength(6);
    expect(h.holders).toHaveBeenCalledTimes(2);
    h.sampler.stop();
  });

  it('names the other end by its mode when no holder reads it, and null when nobody holds it', async () => {
    const child = proc(CHILD, {
      stdio: [
        { fd: 0, target: 'pipe:[50]', nonBlocking: false },
        { fd: 1, target: 'pipe:[51]', nonBlocking: false },
      ],
    });
    const h = make([tree(proc(ROOT, { stdio: rootStdio }), child)], (target) =>
      target === 'pipe:[50]' ? [{ pid: process.pid, fd: 9, mode: 'read-write' }] : [],
    );
    h.sampler.start(ROOT);
    await run(0);
    const [inEnd, outEnd] = h.snaps[0].processes[1].stdio;
    expect(inEnd.peer).toEqual({
      pid: process.pid,
      command: 'pipescope',
      note: 'holds the other end (read-write) as fd 9',
    });
    expect(outEnd.peer).toBeNull();
    h.sampler.stop();
  });
});

describe('ProcessSampler: the snapshot', () => {
  it('keeps the tree order, depth, omitted count and thread states', async () => {
    const root = proc(ROOT, {
      threadCount: 40,
      threads: [
        thread(ROOT, { wchan: 'ep_poll' }),
        thread(ROOT + 1, { state: 'R', syscall: 'running' }),
      ],
    });
    const h = make([{ rootPid: ROOT, processes: [root, proc(CHILD)], omitted: 3 }]);
    h.sampler.start(ROOT);
    await run(0);
    const s = h.snaps[0];
    expect(s).toMatchObject({ t: 0, rootPid: ROOT, omitted: 3 });
    expect(s.processes.map((p) => [p.pid, p.ppid, p.depth])).toEqual([
      [ROOT, 1, 0],
      [CHILD, ROOT, 1],
    ]);
    expect(s.processes[0].threadCount).toBe(40);
    expect(s.processes[0].threads).toEqual([
      { tid: ROOT, state: 'S', wchan: 'ep_poll', syscall: null },
      { tid: ROOT + 1, state: 'R', wchan: null, syscall: 'running' },
    ]);
    h.sampler.stop();
  });
});
