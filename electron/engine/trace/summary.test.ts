/** Report from a trace: `end` when present, else rebuilt exactly as the engine builds it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FINDING_LEVELS, type FindingCode, type LiveFinding } from '../../../shared/findings.js';
import { type RequestRecord, sentRecord } from '../../../shared/requests.js';
import type { TraceFindingEvent } from '../../../shared/trace-format.js';
import { HEADER, writeTrace } from '../../../test/fixtures/trace-fixtures.js';
import { FindingsEngine } from '../session/findings-engine.js';
import { TraceReader } from './reader.js';
import { foldFindings, summarizeTrace } from './summary.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUDGETS = HEADER.config.budgets;
const CODES = Object.keys(FINDING_LEVELS) as FindingCode[];

function asEvent(f: LiveFinding): TraceFindingEvent {
  return {
    t: f.lastAt,
    type: 'finding',
    code: f.code,
    level: f.level,
    message: f.message,
    count: f.count,
    firstAt: f.firstAt,
    lastAt: f.lastAt,
    ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
  };
}

function record(p: Partial<RequestRecord> & Pick<RequestRecord, 'id' | 'method'>): RequestRecord {
  return { ...sentRecord({ id: p.id, method: p.method, sentAt: 0, requestBytes: 10 }), ...p };
}

describe('foldFindings', () => {
  it('a finding taken back and raised again comes after the others, as in the engine', () => {
    const events: TraceFindingEvent[] = [];
    const engine = new FindingsEngine(BUDGETS, (f) => events.push(asEvent({ ...f })));
    engine.raise('invalid-message', '', 0, 1);
    engine.retract('invalid-message', 1);
    engine.raise('stdout-pollution', '', 0);
    engine.raise('invalid-message', '', 0, 1);
    expect(foldFindings(events).map((f) => f.code)).toEqual([
      'stdout-pollution',
      'invalid-message',
    ]);
    expect(foldFindings(events)).toEqual(engine.forReport());
  });

  it('folds recorded finding events exactly like FindingsEngine.forReport', () => {
    const raise = fc.record({
      code: fc.constantFrom(...CODES),
      message: fc.string({ maxLength: 8 }),
      dt: fc.nat(50),
      requestId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      // Some are taken back later (a late answer that was in fact flushed at exit).
      retract: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(raise, { maxLength: 30 }), (raises) => {
        const events: TraceFindingEvent[] = [];
        const engine = new FindingsEngine(BUDGETS, (f) => events.push(asEvent({ ...f })));
        let t = 0;
        for (const r of raises) {
          t += r.dt;
          engine.raise(r.code, r.message, t, r.requestId);
          if (r.retract) engine.retract(r.code, r.requestId);
        }
        expect(foldFindings(events)).toEqual(engine.forReport());
      }),
    );
  });
});

describe('summarizeTrace', () => {
  const events = [
    { t: 1, type: 'state', state: 'running', pid: 42 },
    { t: 2, type: 'request', record: record({ id: 1, method: 'tools/call', sentAt: 2 }) },
    { t: 3, type: 'stderr', bytes: 12, text: 'hello\nworld\n' },
    {
      t: 50,
      type: 'request',
      record: record({
        id: 1,
        method: 'tools/call',
        sentAt: 2,
        status: 'cancelled',
        cancelledAt: 50,
        cancelReason: 'user',
      }),
    },
    { t: 50, type: 'cancel', id: 1, reason: 'user' },
    { t: 60, type: 'request', record: record({ id: 2, method: 'ping', sentAt: 60 }) },
    {
      t: 61,
      type: 'request',
      record: record({
        id: 2,
        method: 'ping',
        sentAt: 60,
        status: 'timed-out',
        cancelledAt: 61,
      }),
    },
    // A late answer to the recovery probe does not change the probe's verdict.
    {
      t: 70,
      type: 'request',
      record: record({
        id: 2,
        method: 'ping',
        sentAt: 60,
        status: 'late',
        latencyMs: 10.04,
        responseBytes: 30,
      }),
    },
    {
      t: 80,
      type: 'metrics',
      metrics: { stdoutBytes: 99, frames: 2, stderrBytes: 12, cancellationsSent: 1 },
    },
    { t: 90, type: 'exit', code: null, signal: 'SIGTERM' },
  ];

  it('rebuilds the report when the trace has no end', async () => {
    const file = writeTrace(path.join(dir, 'noend.jsonl'), [HEADER, ...events]);
    const r = await TraceReader.open(file);
    try {
      const sum = await summarizeTrace(r);
      expect(sum.reconstructed).toBe(true);
      expect(sum.report.server).toEqual({
        command: 'node',
        args: ['srv.js'],
        pid: 42,
        exit: { code: null, signal: 'SIGTERM' },
      });
      expect(sum.report.metrics.stdoutBytes).toBe(99);
      expect(sum.report.requests).toEqual([
        { id: 1, method: 'tools/call', status: 'cancelled', latencyMs: null, responseBytes: null },
        { id: 2, method: 'ping', status: 'late', latencyMs: 10, responseBytes: 30 },
      ]);
      expect(sum.report.recovery).toEqual({ method: 'ping', ok: false, latencyMs: null });
      expect(sum.stderrTail).toEqual(['hello', 'world']);
      expect(sum.cancels).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it('rebuilds a recovery probe answered in time behind the host queue as recovered', async () => {
    // Timed out at 61 while its answer (here at 63) waited in the host's queue: completed.
    const answeredInTime = events.map((e) =>
      e.t === 70 && e.type === 'request'
        ? {
            ...e,
            record: record({
              id: 2,
              method: 'ping',
              sentAt: 60,
              status: 'completed',
              cancelledAt: 61,
              latencyMs: 3,
              responseBytes: 30,
            }),
          }
        : e,
    );
    const file = writeTrace(path.join(dir, 'intime.jsonl'), [HEADER, ...answeredInTime]);
    const r = await TraceReader.open(file);
    try {
      const sum = await summarizeTrace(r);
      expect(sum.report.recovery).toEqual({ method: 'ping', ok: true, latencyMs: 3 });
    } finally {
      await r.close();
    }
  });

  it('uses the end record as is when present', async () => {
    const report = {
      server: { command: 'x', args: [], pid: 1, exit: null },
      metrics: {},
      requests: [],
      recovery: null,
      findings: [],
    };
    const end = {
      t: 100,
      type: 'end',
      report,
      recovery: null,
      startError: null,
      recording: { bytes: 1, frames: 0, framesWithText: 0, truncatedFrames: 0 },
    };
    const file = writeTrace(path.join(dir, 'end.jsonl'), [HEADER, ...events, end]);
    const r = await TraceReader.open(file);
    try {
      const sum = await summarizeTrace(r);
      expect(sum.reconstructed).toBe(false);
      // An older build's report had no `process`: it gains the one the trace can tell.
      expect(sum.report).toEqual({
        ...report,
        process: { available: false, reason: expect.any(String), samples: 0 },
      });
      expect(sum.durationMs).toBe(100);
    } finally {
      await r.close();
    }
    const process = { available: true, samples: 42 };
    const file2 = writeTrace(path.join(dir, 'end2.jsonl'), [
      HEADER,
      ...events,
      { ...end, report: { ...report, process } },
    ]);
    const r2 = await TraceReader.open(file2);
    try {
      expect((await summarizeTrace(r2)).report).toEqual({ ...report, process });
    } finally {
      await r2.close();
    }
  });
});
