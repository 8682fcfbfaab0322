/**
 * Cancellation on real processes (DESIGN.md "Requests", HARDENING.md 11-13): a cancellation
 * must reach the producer, and its proof is a second small request on the same session that
 * completes fast. A server that answers anyway is shown as late, never as an error;
 * `initialize` is never cancelled; a timeout sends a cancellation; replay makes a new request.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import type { Session } from '../../dist/electron/engine/session/session.js';
import type { FrameBytes } from '../../dist/electron/engine/transport/frame-bytes.js';
import {
  collectStderr,
  expectNothingLeftBehind,
  findingCodes,
  inlineServer,
  startDemo,
  startSession,
  stopAllSessions,
  waitFor,
  waitForFinding,
  withTimeout,
} from './helpers.js';

afterEach(stopAllSessions);

async function ready(id: string, config = {}): Promise<Session> {
  const session = await startDemo(id, {}, config);
  await withTimeout(initialize(session, 5000), 5000, 'initialize');
  await withTimeout(listTools(session, 5000), 5000, 'tools/list');
  return session;
}

/** Session-clock times of every progress notification the session routes from now on. */
function progressTimes(session: Session): number[] {
  const times: number[] = [];
  session.on('frame', (f) => {
    if (f.dir === 'in' && f.method === 'notifications/progress') times.push(f.t);
  });
  return times;
}

/** An observation window: what must NOT happen is checked after it (bounded, on purpose). */
function observe(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The recovery check of DESIGN.md: a small request on the same session, answered fast. */
async function expectFastPing(session: Session): Promise<void> {
  const started = Date.now();
  const { record } = await withTimeout(session.send('ping').done, 2000, 'ping');
  expect(record.status).toBe('completed');
  expect(record.latencyMs ?? Number.POSITIVE_INFINITY).toBeLessThan(1000);
  expect(Date.now() - started).toBeLessThan(1000);
}

describe('cancellation reaches the producer', () => {
  it('slow-producer: cancel once progress began → cancelled, producer stops, ping is fast', async () => {
    const session = await ready('slow-producer');
    const progress = progressTimes(session);
    const sent = callTool(session, 'produce', { steps: 50, delayMs: 100 });
    await waitFor(() => progress.length >= 2, 5000, 'two progress notifications');

    expect(session.cancel(sent.id, 'test cancel')).toEqual({ ok: true });
    const { record } = await sent.done;
    expect(record.status).toBe('cancelled');
    expect(record.cancelReason).toBe('test cancel');
    const cancelledAt = record.cancelledAt ?? 0;
    await expectFastPing(session);

    // Five step periods of silence: at most one step already in flight may still report.
    await observe(500);
    const after = progress.filter((t) => t > cancelledAt);
    expect(after.length).toBeLessThanOrEqual(1);
    for (const t of after) expect(t - cancelledAt).toBeLessThan(250);
    expect(session.requests.get(sent.id)?.status).toBe('cancelled');
    expect(session.requests.get(sent.id)?.responseBytes).toBeNull();
    expect(session.liveMetrics().cancellationsSent).toBe(1);
    expect(session.liveMetrics().lateResponses).toBe(0);
    expect(findingCodes(session)).not.toContain('cancel-ignored');
    // The producer itself says its loop ended because of the cancellation.
    await waitFor(
      () => /produce stopped after \d+ of 50 steps \(cancelled\)/.test(session.stderr.text()),
      2000,
      'the producer to log that it stopped',
    );
  });

  it('slow-producer: cancel before work starts → no progress at all, no answer', async () => {
    const session = await ready('slow-producer');
    const progress = progressTimes(session);
    const sent = callTool(session, 'produce', { steps: 20, delayMs: 50 });
    expect(session.cancel(sent.id)).toEqual({ ok: true });
    expect((await sent.done).record.status).toBe('cancelled');
    await expectFastPing(session);
    await observe(300);
    expect(progress).toEqual([]);
    expect(session.requests.get(sent.id)?.responseBytes).toBeNull();
    expect(findingCodes(session)).not.toContain('cancel-ignored');
  });

  it('ignores-cancel: the answer arrives anyway → late, lateResponses 1, cancel-ignored', async () => {
    const session = await ready('ignores-cancel');
    const stderr = collectStderr(session);
    const progress = progressTimes(session);
    const sent = callTool(session, 'produce', { steps: 10, delayMs: 60 });
    await waitFor(() => progress.length >= 1, 5000, 'first progress');
    expect(session.cancel(sent.id, 'stop please').ok).toBe(true);
    expect((await sent.done).record.status).toBe('cancelled');

    await waitFor(
      () => session.requests.get(sent.id)?.status === 'late',
      5000,
      'the late response',
    );
    const record = session.requests.get(sent.id);
    expect(record?.responseBytes).toBeGreaterThan(0);
    expect(session.liveMetrics().lateResponses).toBe(1);
    const finding = await waitForFinding(session, 'cancel-ignored', 1000);
    expect(finding.level).toBe('warn');
    await stderr.waitFor(`ignoring cancellation of request ${String(sent.id)}`, 2000);
    // Late is not broken: the session still answers.
    await expectFastPing(session);
    expect(session.state).toBe('running');
  });

  it('initialize can never be cancelled: refused, nothing written, even on timeout', async () => {
    // A server that never answers and logs every stdin line it gets to stderr.
    const session = startSession({
      ...inlineServer(
        `function onMessage(m) { process.stderr.write('GOT ' + JSON.stringify(m) + '\\n'); }`,
      ),
    });
    await withTimeout(session.whenStarted(), 5000, 'start');
    const stderr = collectStderr(session);
    const sent = session.send(
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      { timeoutMs: 400 },
    );
    const requestBytes = session.requests.get(sent.id)?.requestBytes ?? 0;
    await waitFor(
      () => session.counters()?.stdinBytes === requestBytes + 1,
      3000,
      'initialize on stdin',
    );
    const refused = session.cancel(sent.id);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toMatch(/initialize/);

    const { record } = await withTimeout(sent.done, 3000, 'initialize timeout');
    expect(record.status).toBe('timed-out');
    const finding = await waitForFinding(session, 'request-timed-out', 1000);
    expect(finding.message).toMatch(/no cancellation \(initialize\)/);
    // Fresh counters from after the timeout: stdin bytes are still just the initialize line.
    const t = session.now();
    await waitFor(() => (session.counters()?.t ?? 0) > t + 150, 2000, 'fresh counters');
    expect(session.counters()?.stdinBytes).toBe(requestBytes + 1);
    expect(session.liveMetrics().cancellationsSent).toBe(0);
    await stderr.waitFor('GOT {"jsonrpc":"2.0","id":1,"method":"initialize"', 2000);
    expect(stderr.text()).not.toContain('notifications/cancelled');
  });

  it('a timeout sends a cancellation: timed-out, request-timed-out, cancellationsSent 1', async () => {
    const session = await ready('slow-producer', { requestTimeoutMs: 300 });
    // No progress token: nothing resets the soft timeout.
    const sent = session.send('tools/call', {
      name: 'produce',
      arguments: { steps: 50, delayMs: 100 },
    });
    const { record } = await withTimeout(sent.done, 3000, 'the timeout');
    expect(record.status).toBe('timed-out');
    expect(record.cancelReason).toBe('timeout');
    const finding = await waitForFinding(session, 'request-timed-out', 1000);
    expect(finding.level).toBe('error');
    expect(finding.message).toMatch(/cancellation sent/);
    expect(session.liveMetrics().cancellationsSent).toBe(1);
    await expectFastPing(session);
    // The cancellation reached the producer: no answer follows.
    await observe(400);
    expect(session.requests.get(sent.id)?.status).toBe('timed-out');
    expect(session.liveMetrics().lateResponses).toBe(0);
  });

  it('replay resends a request with a new id, replayOf set, and completes', async () => {
    const session = await ready('slow-producer');
    const first = callTool(session, 'echo', { text: 'once more' });
    const a = await withTimeout(first.done, 3000, 'echo');
    expect(a.record.status).toBe('completed');

    const again = session.replay(first.id);
    expect(again).not.toBeNull();
    if (!again) return;
    expect(again.id).not.toBe(first.id);
    const b = await withTimeout(again.done, 3000, 'replayed echo');
    expect(b.record.status).toBe('completed');
    expect(b.record.replayOf).toBe(first.id);
    expect(b.record.method).toBe('tools/call');
    type Echo = { result: { content: { text: string }[] } };
    const text = (r: FrameBytes | null): string =>
      (JSON.parse(r?.toString('utf8') ?? '{}') as Echo).result.content[0].text;
    expect(text(b.response)).toBe('once more');
    expect(text(b.response)).toBe(text(a.response));
    // initialize is never replayed.
    expect(session.replay(1)).toBeNull();
  });

  it('leaves no server, process group or child process behind', () => {
    expectNothingLeftBehind();
  });
});
