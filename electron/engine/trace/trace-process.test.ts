/**
 * Process samples in a trace, offline: the trace session shows the sample at the seek position
 * (with the sparkline points before it), the report as of t counts the samples, findings keep
 * their evidence, and the Perfetto export has an activity track and a CPU counter per process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessSample } from '../../../shared/process.js';
import type { TraceProcessEvent } from '../../../shared/trace-format.js';
import { processSample, processSnapshot } from '../../../test/fixtures/process-fixtures.js';
import { HEADER, writeTrace } from '../../../test/fixtures/trace-fixtures.js';
import { toChromeTrace } from './export/perfetto.js';
import { TraceReader } from './reader.js';
import { summarizeTrace } from './summary.js';
import { TraceSession } from './trace-session.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-trace-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const idle: Partial<ProcessSample> = {
  activity: {
    kind: 'event-loop',
    tid: 4242,
    syscall: { nr: 232, name: 'epoll_wait', fd: null, bytes: null },
    wchan: 'do_epoll_wait',
    forMs: null,
    fdTarget: null,
  },
};
const child = processSample({ pid: 4300, ppid: 4242, depth: 1, command: 'sh', cpuPercent: 97 });

function sample(t: number, samples: number, server: Partial<ProcessSample>, kids = [child]) {
  const processes = [processSample({ cpuPercent: samples, ...server }), ...kids];
  return { t, type: 'process', samples, snapshot: processSnapshot(t, processes) };
}

let session: TraceSession;

beforeAll(async () => {
  const file = writeTrace(path.join(dir, 'p.jsonl'), [
    { ...HEADER, process: { available: true } },
    { t: 1, type: 'state', state: 'running', pid: 4242 },
    sample(500, 2, idle),
    sample(1000, 4, idle),
    sample(1500, 7, {}),
    {
      t: 1600,
      type: 'finding',
      code: 'server-write-blocked',
      level: 'error',
      message: 'server alive with 1 response owed',
      count: 1,
      firstAt: 1600,
      lastAt: 1600,
      evidence: { pid: 4242, syscall: { name: 'write', fd: 1, bytes: 65536 }, ms: 1500 },
    },
    sample(2500, 12, {}, []),
    { t: 3000, type: 'exit', code: 0, signal: null },
  ]);
  session = await TraceSession.load(await TraceReader.open(file));
});
afterAll(() => session?.close());

describe('a trace with process samples', () => {
  it('says process evidence is there', () => {
    expect(session.info('trace-1', 0).process).toEqual({ available: true });
  });

  it('shows the sample at the seek position and the points before it', async () => {
    const before = await session.stateAt(400);
    expect(before.snapshot.process).toBeUndefined();
    const at = await session.stateAt(1700);
    expect(at.snapshot.process?.t).toBe(1500);
    expect(at.snapshot.process?.processes.map((p) => p.pid)).toEqual([4242, 4300]);
    const server = (at.snapshot.processHistory ?? []).filter((p) => p.pid === 4242);
    expect(server.map((p) => p.t)).toEqual([500, 1000, 1500]);
    expect(at.snapshot.findings[0].evidence).toMatchObject({ pid: 4242, ms: 1500 });
  });

  it('reports the samples the engine had taken by t', async () => {
    expect((await session.reportAt(1200)).process).toEqual({ available: true, samples: 4 });
    const end = await session.reportAt(session.durationMs);
    expect(end.process).toEqual({ available: true, samples: 12 });
    expect(end.findings[0]).toMatchObject({ code: 'server-write-blocked' });
  });

  it('exports an activity track and a CPU counter per process to Perfetto', async () => {
    const trace = toChromeTrace(await session.summarize());
    const slices = trace.traceEvents.filter((e) => e.ph === 'X' && e.cat?.startsWith('process'));
    const server = slices.filter((e) => e.pid === 4242);
    expect(server.map((e) => e.name)).toEqual([
      'idle in its event loop (epoll_wait)',
      'writing stdout (65,536 B)',
    ]);
    // Slices run from the sample that began them to the one that ended them (or the end).
    expect(server[0]).toMatchObject({ ts: 500_000, dur: 1_000_000 });
    expect(server[1].ts + (server[1].dur ?? 0)).toBe(3_000_000);
    // The child is a process of its own; it left the tree at 2.5 s.
    const kid = slices.filter((e) => e.pid === 4300);
    expect(kid).toHaveLength(1);
    expect(kid[0].ts + (kid[0].dur ?? 0)).toBe(2_500_000);
    const names = trace.traceEvents.filter((e) => e.ph === 'M' && e.pid === 4300);
    expect(names.map((e) => e.args?.name)).toContain('4300 sh');
    const cpu = trace.traceEvents.filter((e) => e.ph === 'C' && e.name === 'CPU %');
    expect(cpu.filter((e) => e.pid === 4242).map((e) => e.args?.value)).toEqual([2, 4, 7, 12]);
    expect(cpu.filter((e) => e.pid === 4300)).toHaveLength(3);
  });
});

describe('a trace without process samples', () => {
  it('says why, from its header or its age', async () => {
    const none = writeTrace(path.join(dir, 'none.jsonl'), [
      { ...HEADER, process: { available: false, reason: 'no /proc here' } },
      { t: 1, type: 'state', state: 'running', pid: 1 },
    ]);
    const s = await TraceSession.load(await TraceReader.open(none));
    expect(s.info('t', 0).process).toEqual({ available: false, reason: 'no /proc here' });
    expect((await s.reportAt(s.durationMs)).process).toEqual({
      available: false,
      reason: 'no /proc here',
      samples: 0,
    });
    await s.close();
    const old = writeTrace(path.join(dir, 'old.jsonl'), [HEADER, { t: 1, type: 'exit' }]);
    const o = await TraceSession.load(await TraceReader.open(old));
    expect(o.info('t', 0).process.available).toBe(false);
    const sum = await summarizeTrace(o.reader);
    expect(sum.report.process.samples).toBe(0);
    await o.close();
  });

  it('skips a damaged process line and counts it', async () => {
    const bad = sample(500, 1, idle) as TraceProcessEvent & { snapshot: unknown };
    const file = writeTrace(path.join(dir, 'bad.jsonl'), [
      HEADER,
      { ...bad, snapshot: { t: 500, rootPid: 1, processes: [{ pid: 1 }], omitted: 0 } },
      sample(1000, 2, idle),
    ]);
    const s = await TraceSession.load(await TraceReader.open(file));
    const at = await s.stateAt(2000);
    expect(at.snapshot.process?.t).toBe(1000);
    expect(s.reader.skippedLines).toBe(1);
    await s.close();
  });
});
