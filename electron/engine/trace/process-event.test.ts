import { describe, expect, it } from 'vitest';
import { usableEvent } from '../../../shared/trace-format.js';
import { processSample, processSnapshot } from '../../../test/fixtures/process-fixtures.js';
import {
  PROCESS_KEEPALIVE_MS,
  PROCESS_MIN_GAP_MS,
  ProcessSampleGate,
  processAvailabilityOf,
  processChanged,
  processEvent,
  redactEvidence,
} from './process-event.js';
import { Redactor } from './redact.js';

const idle = (t: number, over = {}) =>
  processSnapshot(t, [
    processSample({
      activity: {
        kind: 'event-loop',
        tid: 4242,
        syscall: { nr: 232, name: 'epoll_wait', fd: null, bytes: null },
        wchan: 'do_epoll_wait',
        forMs: null,
        fdTarget: null,
      },
      ...over,
    }),
  ]);

describe('which process samples a trace keeps', () => {
  it('the first, then changes at most every PROCESS_MIN_GAP_MS, and a keepalive', () => {
    const gate = new ProcessSampleGate();
    expect(gate.offer(idle(0))).toBe(true);
    // Nothing changed: not kept, however often it comes …
    for (let t = 100; t < PROCESS_KEEPALIVE_MS; t += 100) expect(gate.offer(idle(t))).toBe(false);
    // … until the keepalive.
    expect(gate.offer(idle(PROCESS_KEEPALIVE_MS))).toBe(true);
    const writing = processSnapshot(PROCESS_KEEPALIVE_MS + 100, [processSample()]);
    // A change right after a kept sample waits for the gap …
    expect(gate.offer(writing)).toBe(false);
    // … and is kept once the gap passed (compared with the last kept, not the last seen).
    expect(gate.offer({ ...writing, t: PROCESS_KEEPALIVE_MS + PROCESS_MIN_GAP_MS })).toBe(true);
  });

  it('counts as a change: the tree, a state, the call, writing or not, CPU by 10 points, stdio', () => {
    const a = idle(0);
    expect(processChanged(a, idle(500))).toBe(false);
    expect(processChanged(a, idle(500, { state: 'R' }))).toBe(true);
    expect(processChanged(a, idle(500, { writeRate: 1000 }))).toBe(true);
    expect(processChanged(a, idle(500, { cpuPercent: 9 }))).toBe(false);
    expect(processChanged(a, idle(500, { cpuPercent: 10 }))).toBe(true);
    expect(processChanged(a, idle(500, { stdio: [] }))).toBe(true);
    const tree = processSnapshot(500, [...a.processes, processSample({ pid: 5, depth: 1 })]);
    expect(processChanged(a, tree)).toBe(true);
  });
});

describe('process lines', () => {
  it('are usable events with every command line redacted', () => {
    const r = new Redactor({ enabled: true });
    const e = processEvent(processSnapshot(1500, [processSample()]), 17, r);
    expect(e).toMatchObject({ t: 1500, type: 'process', samples: 17 });
    const text = JSON.stringify(e);
    expect(text).not.toContain('s3cr3t-token-value');
    expect(e.snapshot.processes[0].command).toBe('node srv.js --token ***');
    expect(e.snapshot.processes[0].stdio[0].peer?.command).toBe('pipescope web --token ***');
    expect(usableEvent(JSON.parse(text))).not.toBeNull();
  });

  it('a damaged sample is not usable (the panel could not draw it)', () => {
    const e = processEvent(
      processSnapshot(1, [processSample()]),
      1,
      new Redactor({ enabled: false }),
    );
    const broken = JSON.parse(JSON.stringify(e)) as { snapshot: { processes: object[] } };
    broken.snapshot.processes[0] = { pid: 1 };
    expect(usableEvent(broken)).toBeNull();
    expect(usableEvent({ t: 1, type: 'process', samples: 1, snapshot: null })).toBeNull();
    // A null among the stdio ends or the threads (the panel reads each one's fd / tid).
    const nullEnd = JSON.parse(JSON.stringify(e)) as {
      snapshot: { processes: { stdio: unknown[]; threads: unknown[] }[] };
    };
    nullEnd.snapshot.processes[0].stdio = [null];
    expect(usableEvent(nullEnd)).toBeNull();
    const nullThread = JSON.parse(JSON.stringify(e)) as typeof nullEnd;
    nullThread.snapshot.processes[0].threads = [null];
    expect(usableEvent(nullThread)).toBeNull();
    expect(usableEvent(JSON.parse(JSON.stringify(e)))).not.toBeNull();
  });

  it('evidence keeps its facts and loses its secrets', () => {
    const r = new Redactor({ enabled: true });
    const ev = redactEvidence({ pid: 4242, command: 'srv --api-key abcdefgh', ms: 3100 }, r);
    expect(ev).toEqual({ pid: 4242, command: 'srv --api-key ***', ms: 3100 });
  });

  it('availability: a reason always comes with "not available"', () => {
    expect(processAvailabilityOf({ available: true, reason: 'x' })).toEqual({ available: true });
    expect(processAvailabilityOf({ available: false })).toMatchObject({ available: false });
    expect(processAvailabilityOf({ available: false }).reason).toBeTruthy();
  });
});
