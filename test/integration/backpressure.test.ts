/**
 * Backpressure through a real pipe: the `oversized-result` demo
 * answers `dump` with one 8 MiB text result, written in 16 KiB chunks awaiting 'drain'.
 * With the reader paused the server stays alive, parks in write() mid-response and says so on
 * stderr, and `server-write-blocked` is raised live; resuming completes the response. With the
 * reader draining, the response completes and largestFrameBytes is exact. The CLI shows the
 * same through `probe --json --demo oversized-result`.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import type { Session } from '../../dist/electron/engine/session/session.js';
import type { FrameBytes } from '../../dist/electron/engine/transport/frame-bytes.js';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import { running } from '../fixtures/processes.js';
import {
  collectStderr,
  expectNothingLeftBehind,
  expectReportByteInvariant,
  findingCodes,
  MiB,
  REPORT_KEYS,
  REPORT_METRIC_KEYS,
  runCli,
  startDemo,
  stopAllSessions,
  waitFor,
  waitForFinding,
  withTimeout,
} from './helpers.js';

const DUMP_BYTES = 8 * MiB;

afterEach(stopAllSessions);

/** initialize + tools/list; returns stdout bytes so far, once the counters show them all. */
async function handshake(session: Session): Promise<number> {
  await withTimeout(initialize(session), 5000, 'initialize');
  const tools = await withTimeout(listTools(session), 5000, 'tools/list');
  expect(tools.map((t) => t.name).sort()).toEqual(['dump', 'echo']);
  // Only responses came on stdout so far: each is its bytes plus a newline.
  const bytes = session.requests.all().reduce((n, r) => n + (r.responseBytes ?? 0) + 1, 0);
  await waitFor(() => session.counters()?.stdoutBytes === bytes, 2000, 'handshake counters');
  return bytes;
}

/**
 * Checks the dump response byte for byte: its text is exactly 8 MiB of 'x', the line is the
 * compact serialization of what it carries (no \r, no padding), and that length is what the
 * request table recorded as responseBytes (the caller checks largestFrameBytes against it).
 */
function expectExactDumpFrame(response: FrameBytes, responseBytes: number | null) {
  type DumpResponse = { result: { content: { type: string; text: string }[] } };
  const parsed = JSON.parse(response.toString('utf8')) as DumpResponse;
  const text = parsed.result.content[0].text;
  expect(text.length).toBe(DUMP_BYTES);
  expect(/^x+$/.test(text)).toBe(true);
  // What the line must be: the envelope around an empty text, plus the 8 MiB of text.
  parsed.result.content[0].text = '';
  const expected = Buffer.byteLength(JSON.stringify(parsed)) + DUMP_BYTES;
  expect(expected).toBeGreaterThan(DUMP_BYTES);
  expect(response.length).toBe(expected);
  expect(responseBytes).toBe(expected);
  return expected;
}

/**
 * The dump completes with its exact frame, and nothing else came on stdout since the call
 * (`before`: stdout bytes then): exactly one line, frame + newline. Counters reach main every
 * 100 ms: once they include the frame, the largest frame is exactly it.
 */
async function expectDumpDelivered(
  session: Session,
  sent: ReturnType<typeof callTool>,
  before: number,
  label: string,
): Promise<void> {
  const { record, response } = await withTimeout(sent.done, 10_000, label);
  expect(record.status).toBe('completed');
  expect(response).not.toBeNull();
  if (!response) return;
  const frameBytes = expectExactDumpFrame(response, record.responseBytes);
  await waitFor(
    () => session.counters()?.stdoutBytes === before + frameBytes + 1,
    2000,
    'counters to catch up with the frame',
  );
  expect(session.liveMetrics().largestFrameBytes).toBe(frameBytes);
}

describe('an 8 MiB result through a 64 KiB pipe', () => {
  it('reader paused: server alive, stuck mid-response, backpressure reported, then resumes', async () => {
    const session = await startDemo('oversized-result', {}, { budgets: { writeBlockedMs: 500 } });
    const stderr = collectStderr(session);
    const before = await handshake(session);
    const pid = session.pid ?? -1;

    session.setReaderMode('paused');
    const sent = callTool(session, 'dump', {});

    // Live, from the stream: the finding, and the server's own word that write() is parked.
    const finding = await waitForFinding(session, 'server-write-blocked', 5000);
    expect(finding.level).toBe('error');
    expect(finding.message).toMatch(/reader paused/);
    await stderr.waitFor('stdout backpressure observed', 5000);

    // stdout bytes stopped growing (stable over 300 ms of counter updates), far below 8 MiB.
    let last = -1;
    let stableSince = Date.now();
    const stuckAt = await waitFor(
      () => {
        const c = session.counters();
        if (!c) return undefined;
        if (c.stdoutBytes !== last) {
          last = c.stdoutBytes;
          stableSince = Date.now();
          return undefined;
        }
        return Date.now() - stableSince >= 300 && c.stdoutBytes;
      },
      3000,
      'stdout bytes to stop growing',
    );
    expect(stuckAt - before).toBeLessThan(DUMP_BYTES / 8);
    // Alive and owing the response: signal 0 reaches it, the request is still pending.
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(session.exit).toBeNull();
    expect(session.requests.get(sent.id)?.status).toBe('pending');
    expect(session.liveMetrics().readingStdout).toBe(false);

    // Resume: the whole frame arrives, exact to the byte.
    session.setReaderMode('drain');
    await expectDumpDelivered(session, sent, before, 'dump after resume');
    expect(session.counters()?.pendingBytes).toBe(0);
    expect(findingCodes(session)).not.toContain('stdout-pollution');
    expect(running(pid)).toBe(true);
  });

  it('reader drain: the response completes and largestFrameBytes is exact', async () => {
    const session = await startDemo('oversized-result');
    const before = await handshake(session);
    const sent = callTool(session, 'dump', {});
    await expectDumpDelivered(session, sent, before, 'dump');
    const codes = findingCodes(session);
    expect(codes).not.toContain('server-write-blocked');
    expect(codes).not.toContain('oversize-frame');
  });

  it('CLI: probe --json --demo oversized-result reports the blocked write and the timeout', async () => {
    const r = await runCli(['probe', '--json', '--demo', 'oversized-result']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
    expect(Object.keys(report.metrics).sort()).toEqual(REPORT_METRIC_KEYS);
    const codes = report.findings.map((f) => f.code);
    expect(codes).toContain('server-write-blocked');
    expect(codes).toContain('request-timed-out');
    expect(codes).not.toContain('stdout-pollution');
    expect(codes).not.toContain('server-exited');
    const call = report.requests.find((q) => q.method === 'tools/call');
    // Timed out while the reader was paused; the stop ladder may still drain it in as late.
    expect(['timed-out', 'late']).toContain(call?.status);
    expect(report.metrics.cancellationsSent).toBeGreaterThanOrEqual(1);
    expectReportByteInvariant(report);
    expect(running(report.server.pid ?? -1)).toBe(false);
  });

  it('a session created with the reader paused names the blocked server once a response is owed', async () => {
    const session = await startDemo('healthy', {}, { readerMode: 'paused' });
    session.send('ping');
    await waitForFinding(session, 'server-write-blocked', 5000);
    expect(session.counters()?.readingStdout).toBe(false);
    expect(session.counters()?.notReadingSince).not.toBeNull();
  });

  it('leaves no server, process group or child process behind', () => {
    expectNothingLeftBehind();
  });
});
