/**
 * Hostile transports on real pipes (HARDENING.md 1-10, "Hostile inputs"): pollution, garbage
 * bytes, the frame limit exactly at and one byte over (discard-and-resync, or terminate), a
 * partial line at exit, a stderr flood with idle stdout, a server that stops reading stdin, a
 * slow consumer, JSON that breaks naive hosts, batches, unknown ids and server requests.
 * Every session ends in afterEach, which asserts stdoutBytes = Σ line bytes + partial at EOF.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import type { Session } from '../../dist/electron/engine/session/session.js';
import { SPILL_MAX_FRAMES } from '../../dist/electron/wire/protocol.js';
import type { SessionConfigInput } from '../../dist/shared/session-config.js';
import {
  collectStderr,
  expectByteInvariant,
  expectNothingLeftBehind,
  findingCodes,
  MiB,
  startDemo,
  startSession,
  stopAllSessions,
  waitFor,
  waitForFinding,
  withTimeout,
} from './helpers.js';
import * as servers from './hostile-servers.js';

afterEach(stopAllSessions);

async function start(config: SessionConfigInput): Promise<Session> {
  const session = startSession(config);
  await withTimeout(session.whenStarted(), 5000, 'server start');
  return session;
}

async function ping(session: Session, method = 'ping') {
  return withTimeout(session.send(method).done, 5000, method);
}

/** Waits until the worker's counters have caught up with a quiet stdout. */
function settled(session: Session, frames: number): Promise<unknown> {
  return waitFor(() => session.counters()?.frames === frames, 3000, `${frames} frames counted`);
}

describe('framing hostile stdout', () => {
  it('pollution: banner and log lines are shown with offset and preview; messages still flow', async () => {
    const session = await start(servers.pollution);
    const { record } = await ping(session);
    expect(record.status).toBe('completed');
    await waitForFinding(session, 'stdout-pollution');
    expect(session.pollution.map((p) => [p.offset, p.preview])).toEqual([
      [0, servers.BANNER],
      [servers.BANNER.length + 1, 'handling ping'],
    ]);
    await settled(session, 3);
    expect(session.liveMetrics().parseErrors).toBe(2);
  });

  it('garbage bytes (\\xff\\xfe, BOM, ANSI, empty CRLF line) are parse errors, no crash', async () => {
    const session = await start(servers.garbage);
    const { record } = await ping(session);
    expect(record.status).toBe('completed');
    await waitFor(() => session.pollution.length === 4, 2000, 'four pollution entries');
    expect(session.pollution.map((p) => p.offset)).toEqual([0, 4, 70, 92]);
    expect(session.pollution[0].problem).toBe('not valid UTF-8');
    expect(session.pollution[2].preview).toContain('ready');
    expect(session.pollution[3].bytes).toBe(0); // "\r\n": one \r stripped, an empty line
    await settled(session, 5);
    expect(session.liveMetrics().parseErrors).toBe(4);
    expect(session.state).toBe('running');
  });

  it('frame limit: exactly at the limit is delivered, one byte over is discarded, stream resyncs', async () => {
    const limit = 1024;
    const session = await start({ ...servers.frameLimit(limit), maxFrameBytes: limit });
    const first = await ping(session);
    const second = await ping(session);
    for (const { record } of [first, second]) {
      expect(record.status).toBe('completed');
      expect(record.responseBytes).toBe(limit);
    }
    const finding = await waitForFinding(session, 'oversize-frame');
    expect(finding.message).toMatch(/discarded to the next newline/);
    await settled(session, 2);
    const m = session.liveMetrics();
    expect(m.oversizeFrames).toBe(2);
    expect(m.largestFrameBytes).toBe(limit);
    expect(m.parseErrors).toBe(0);
    expect(m.stdoutBytes).toBe(2 * (limit + 2 + limit + 1));
  });

  it('oversize with onOversize terminate ends the session', async () => {
    const limit = 1024;
    const session = await start({
      ...servers.frameLimit(limit),
      maxFrameBytes: limit,
      onOversize: 'terminate',
    });
    const sent = session.send('ping');
    const finding = await waitForFinding(session, 'oversize-frame');
    expect(finding.message).toMatch(/session ended/);
    await waitFor(() => session.state === 'stopped', 5000, 'the session to end');
    expect(session.exit).not.toBeNull();
    await withTimeout(sent.done, 1000, 'the request to settle');
    // The session ended the server; it did not die on its own.
    expect(findingCodes(session)).not.toContain('server-exited');
  });

  it('a partial line at exit is counted as truncated and never delivered', async () => {
    const session = await start(servers.truncated);
    const sent = session.send('tools/call', { name: 'anything' });
    await waitForFinding(session, 'truncated-at-exit');
    await waitFor(() => session.state === 'stopped', 5000, 'the session to end');
    expect(session.exit).toMatchObject({ code: 3, signal: null });
    expect(findingCodes(session)).toContain('server-exited');
    const c = session.counters();
    expect(c?.partialBytesAtEof).toBe(Buffer.byteLength(servers.PARTIAL));
    expect(c?.frames).toBe(0);
    expect((await sent.done).record.responseBytes).toBeNull();
    expectByteInvariant(session);
  });
});

describe('pipes that fill up', () => {
  it('stderr flood of 10 MB with stdout idle: never blocked, every byte counted', async () => {
    const session = await start(servers.stderrFlood);
    const { record, response } = await ping(session);
    expect(record.status).toBe('completed');
    const { floodMs } = (
      JSON.parse(response?.toString() ?? '{}') as { result: { floodMs: number } }
    ).result;
    expect(floodMs).toBeLessThan(5000);
    await waitFor(
      () => session.counters()?.stderrBytes === servers.STDERR_FLOOD_BYTES,
      3000,
      'all stderr counted',
    );
    await session.stop();
    const m = session.liveMetrics();
    expect(m.stderrBytes).toBe(servers.STDERR_FLOOD_BYTES);
    // The ring is bounded; what it dropped is counted: kept + dropped = everything.
    const kept = Buffer.byteLength(session.stderr.text());
    expect(kept + m.stderrDroppedBytes).toBe(servers.STDERR_FLOOD_BYTES);
    expect(findingCodes(session)).not.toContain('server-write-blocked');
  });

  it('stops-reading-stdin: a > 1 MiB write waits, stdin-blocked is raised, the host never hangs', async () => {
    const session = await startDemo(
      'stops-reading-stdin',
      {},
      { budgets: { stdinWaitMs: 300 }, requestTimeoutMs: 1500 },
    );
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    await withTimeout(listTools(session, 5000), 5000, 'tools/list');
    const before = session.liveMetrics().stdinBytes;
    const sent = callTool(session, 'echo', { text: 'hello', pad: 'x'.repeat(2 * MiB) });
    const finding = await waitForFinding(session, 'stdin-blocked', 5000);
    expect(finding.level).toBe('error');
    const m = session.liveMetrics();
    expect(m.stdinPendingBytes).toBeGreaterThan(0);
    expect(m.stdinBytes - before).toBeLessThan(2 * MiB);
    // The host's timers still run: the request times out (its cancellation queues behind).
    expect((await withTimeout(sent.done, 5000, 'timeout')).record.status).toBe('timed-out');
    await withTimeout(session.stop(), 5000, 'stop with a stuck write');
    expect(session.state).toBe('stopped');
  });

  it('a flood of frames with a slow consumer raises host-queue-stalled, nothing lost', async () => {
    const session = await start({
      ...servers.notificationFlood,
      consumerDelayMs: 5,
      budgets: { dispatcherWaitMs: 200 },
    });
    const sent = session.send('tools/call', { name: 'flood' });
    const finding = await waitForFinding(session, 'host-queue-stalled', 5000);
    expect(finding.level).toBe('warn');
    expect(session.liveMetrics().dispatcherDepth).toBeGreaterThan(0);
    session.setConsumerDelay(0);
    expect((await withTimeout(sent.done, 5000, 'flood answer')).record.status).toBe('completed');
    const m = session.liveMetrics();
    expect(m.notifications).toBe(servers.NOTIFICATIONS);
    expect(m.dispatcherMaxDepth).toBeGreaterThan(1);
    expect(m.droppedFrames).toBe(0);
  });
});

describe('overload', () => {
  it('drop: one finding an episode, frames counted; a terminate set meanwhile ends the session', async () => {
    // A slow consumer and a 1 KiB spill: full at once, and it stays full.
    const session = await start({
      ...servers.yesFlood,
      consumerDelayMs: 50,
      spillMaxBytes: 1024,
      overloadPolicy: 'drop',
    });
    await waitForFinding(session, 'dispatch-overflow', 5000);
    await waitFor(() => (session.liveMetrics().droppedFrames ?? 0) > 100_000, 5000, 'drops');
    const overflow = () => session.findings.all().find((f) => f.code === 'dispatch-overflow');
    // Reported once an episode, not once a dropped frame: one episode here, unless the spill
    // drained to half while the worker was starved of CPU (then a new episode, rightly).
    const episodes = overflow()?.count ?? 0;
    expect(episodes).toBeGreaterThanOrEqual(1);
    expect(episodes).toBeLessThanOrEqual(3);
    session.setLimits({ overloadPolicy: 'terminate' });
    await waitFor(() => session.state === 'stopped', 8000, 'the session to stop');
    // The policy change is reported at once (mid-episode), with the policy that ended it.
    expect(overflow()?.count).toBeGreaterThan(episodes);
    expect(overflow()?.count).toBeLessThanOrEqual(episodes + 3);
    expect(overflow()?.message).toContain('policy terminate');
    expect(findingCodes(session)).not.toContain('server-exited');
  });

  it('pause: a stop still bounds the spill (reading goes on while stopping: frames past it drop)', async () => {
    // `yes` itself: it ignores stdin's end, so the ladder waits out its first grace period
    // while stdout floods on.
    const session = await start({
      command: 'yes',
      consumerDelayMs: 50,
      spillMaxBytes: 1024,
      overloadPolicy: 'pause',
    });
    await waitForFinding(session, 'dispatch-overflow', 5000);
    const started = Date.now();
    await withTimeout(session.stop(), 8000, 'stop');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(session.counters()?.maxSpillFrames).toBeLessThanOrEqual(SPILL_MAX_FRAMES);
  });
});

describe('hostile JSON-RPC', () => {
  it('__proto__ keys, huge numbers and 1e5-deep nesting are classified without a crash', async () => {
    const session = await start(servers.weirdJson);
    const { record } = await ping(session);
    expect(record.status).toBe('completed');
    await settled(session, 8);
    expect(session.state).toBe('running');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Every notification reached main, the 7000-deep one included (it once lost its batch).
    expect(session.liveMetrics().notifications).toBe(3);
    const codes = findingCodes(session);
    expect(codes).toContain('invalid-message'); // id 1e400 and the nested non-RPC object
    expect(codes).toContain('unexpected-response'); // the __proto__ response for an unknown id
    expect(session.stderr.text()).not.toContain('[pipescope]');
    // Still healthy afterwards.
    expect((await ping(session)).record.status).toBe('completed');
  });

  it('batches: a response inside a batch completes its request; its ping is answered', async () => {
    const session = await start(servers.batches);
    const stderr = collectStderr(session);
    const { record } = await ping(session);
    expect(record.status).toBe('completed');
    const line = await stderr.waitFor(/GOT \{[^\n]*"srv-batch-ping"[^\n]*\}\n/, 3000);
    expect(line).toContain('GOT {"jsonrpc":"2.0","id":"srv-batch-ping","result":{}}');
  });

  it('responses to unknown ids and duplicates → unexpected-response, the request still completes', async () => {
    const session = await start(servers.unknownIds);
    const { record, response } = await ping(session);
    expect(record.status).toBe('completed');
    expect(response?.toString()).toContain('"first":true');
    const finding = await waitForFinding(session, 'unexpected-response');
    expect(finding.level).toBe('warn');
    await waitFor(
      () => (session.findings.all().find((f) => f.code === 'unexpected-response')?.count ?? 0) >= 2,
      2000,
      'both unexpected responses',
    );
    expect(session.requests.get(record.id)?.status).toBe('completed');
  });

  it('server pings are answered with {}, unsupported requests with a JSON-RPC error', async () => {
    const session = await start(servers.serverRequests);
    const stderr = collectStderr(session);
    await stderr.waitFor('"srv-2"', 3000);
    await stderr.waitFor('"srv-1"', 3000);
    const got = stderr
      .text()
      .split('\n')
      .filter((l) => l.startsWith('GOT '))
      .map((l) => JSON.parse(l.slice(4)) as Record<string, unknown>);
    expect(got).toContainEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(got).toContainEqual({
      jsonrpc: '2.0',
      id: 'srv-2',
      error: expect.objectContaining({ code: -32601 }),
    });
  });

  it('leaves no server, process group or child process behind', () => {
    expectNothingLeftBehind();
  });
});
