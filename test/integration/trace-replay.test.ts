/**
 * `pipescope replay` against real demo servers: the same server answers as recorded; a
 * changed knob is a changed response; an incident recorded on `ignores-cancel` replayed on the
 * fixed server (`slow-producer`, same tool) shows the cancellation re-aimed and honoured now;
 * responses recorded without text (budget) are compared by sha-256.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import { TraceRecorder } from '../../dist/electron/engine/trace/recorder.js';
import type { ReplayResult } from '../../dist/electron/engine/trace/replay-diff.js';
import {
  expectNothingLeftBehind,
  runCli,
  startSession,
  stopAllSessions,
  withTimeout,
} from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-replay-'));
const healthyTrace = path.join(tmp, 'healthy.jsonl');
afterEach(stopAllSessions);
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  expectNothingLeftBehind();
});

function argv(id: string, knobs: Record<string, string> = {}): string[] {
  const { command, args } = demoCommand(id, knobs);
  return [command, ...args];
}

async function replay(
  trace: string,
  server: string[],
  extra: string[] = [],
): Promise<{ code: number | null; result: ReplayResult }> {
  const r = await runCli(['replay', trace, '--json', ...extra, '--', ...server], 30_000);
  expect(r.stderr).toBe('');
  return { code: r.code, result: JSON.parse(r.stdout) as ReplayResult };
}

beforeAll(async () => {
  const r = await runCli(['probe', '--demo', 'healthy', '--trace', healthyTrace]);
  expect(r.code).toBe(0);
});

describe('replay', () => {
  it('the same server answers as recorded: no differences, exit 0', async () => {
    const { code, result } = await replay(healthyTrace, argv('healthy'), ['--timing', 'fast']);
    expect(code).toBe(0);
    expect(result.differences).toBe(0);
    expect(result.requests.map((q) => [q.method, q.oldId, q.newId, q.response])).toEqual([
      ['initialize', 1, 1, 'same'],
      ['tools/list', 2, 2, 'same'],
      ['tools/call', 3, 3, 'same'],
    ]);
    for (const q of result.requests) {
      expect(q.latencyThenMs).toBeGreaterThan(0);
      expect(q.latencyNowMs).toBeGreaterThan(0);
    }
  });

  it('a changed server (smaller search page) is reported as changed responses', async () => {
    const { code, result } = await replay(healthyTrace, argv('healthy', { 'page-size': '5' }));
    expect(code).toBe(1);
    const call = result.requests.find((q) => q.method === 'tools/call');
    expect(call).toMatchObject({ statusThen: 'completed', statusNow: 'completed' });
    expect(call?.response).toBe('changed');
    expect(call?.bytesDelta).toBeLessThan(-500);
    expect(result.requests[0].response).toBe('same');
    expect(result.differences).toBeGreaterThanOrEqual(1);
  });

  it('an ignored cancellation, replayed on the fixed server, is re-aimed and honoured', async () => {
    const trace = path.join(tmp, 'ignores-cancel.jsonl');
    await runCli(['probe', '--demo', 'ignores-cancel', '--trace', trace]);
    // --timeout-ms bounds the wait for the late answer the trace had (it never comes now).
    const { code, result } = await replay(trace, argv('slow-producer'), ['--timeout-ms', '1500']);
    expect(code).toBe(1);
    const call = result.requests.find((q) => q.method === 'tools/call');
    expect(call).toMatchObject({ statusThen: 'late', statusNow: 'cancelled', response: 'missing' });
    expect(result.report.metrics.cancellationsSent).toBe(1);
    expect(result.findings.removed).toContain('cancel-ignored');
    expect(result.notes.filter((n) => /cancellation/.test(n))).toEqual([]);
  });

  it('responses recorded without text (over the budget) are compared by sha-256', async () => {
    const trace = path.join(tmp, 'budget.jsonl');
    const session = startSession(demoCommand('healthy'));
    const recorder = TraceRecorder.start(session, { path: trace, budgetBytes: 2500 });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    await withTimeout(listTools(session, 5000), 5000, 'tools/list');
    await withTimeout(callTool(session, 'echo', { text: 'hi' }).done, 5000, 'echo');
    await session.stop();
    await recorder.finish();
    const same = await replay(trace, argv('healthy'), ['--timing', 'fast']);
    expect(same.result.requests.map((q) => q.response)).toEqual(['same', 'same', 'same']);
    expect(same.code).toBe(0);
    const changed = await replay(trace, argv('healthy', { 'page-size': '7' }), [
      '--timing',
      'fast',
    ]);
    expect(changed.result.requests.map((q) => q.response)).toEqual(['same', 'changed', 'same']);
  });

  it('a trace recorded mid-session (its ids renumbered) does not wait out the timeout', async () => {
    const trace = path.join(tmp, 'mid-session.jsonl');
    const session = startSession(demoCommand('healthy'));
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    await withTimeout(listTools(session, 5000), 5000, 'tools/list');
    // Record turned on now (the app's toggle): the trace holds one call, id 3, no handshake.
    const recorder = TraceRecorder.start(session, { path: trace });
    await withTimeout(callTool(session, 'echo', { text: 'hi' }).done, 5000, 'echo');
    await session.stop();
    await recorder.finish();
    const started = Date.now();
    const { result } = await replay(trace, argv('healthy'), [
      '--timing',
      'fast',
      '--timeout-ms',
      '10000',
    ]);
    const ms = Date.now() - started;
    const call = result.requests.find((q) => q.method === 'tools/call');
    expect(call).toMatchObject({ oldId: 3, statusNow: 'completed', response: 'same' });
    expect(call?.newId).not.toBe(3);
    // It waited 10 s (the timeout) for an answer it had, looked up under the old id.
    expect(ms).toBeLessThan(7000);
  });

  it('ordinary text that names a secret is recorded as is: replayed exactly, no redaction note', async () => {
    const trace = path.join(tmp, 'ordinary.jsonl');
    const session = startSession(demoCommand('healthy'));
    const recorder = TraceRecorder.start(session, { path: trace });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    await withTimeout(listTools(session, 5000), 5000, 'tools/list');
    await withTimeout(callTool(session, 'echo', { text: 'hello secret=abc' }).done, 5000, 'echo');
    await session.stop();
    await recorder.finish();
    expect(readFileSync(trace, 'utf8')).toContain('hello secret=abc');
    const { code, result } = await replay(trace, argv('healthy'), ['--timing', 'fast']);
    expect(result.notes.filter((n) => /redact/.test(n))).toEqual([]);
    expect(result.requests.map((q) => q.response)).toEqual(['same', 'same', 'same']);
    expect(code).toBe(0);
  });
});
