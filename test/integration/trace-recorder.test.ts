/**
 * The trace recorder on real sessions: the recording budget (frames beyond it keep size and
 * sha-256, not text), flushing within a second while the session runs, oversize events, and
 * unwritable paths or a full disk — a clear error, and the session goes on unrecorded.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import type { Session } from '../../dist/electron/engine/session/session.js';
import { TraceRecorder } from '../../dist/electron/engine/trace/recorder.js';
import type { TraceEvent, TraceFrameEvent } from '../../dist/shared/trace-format.js';
import { startSession, stopAllSessions, waitFor, withTimeout } from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-recorder-'));
afterEach(stopAllSessions);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function readTrace(file: string): { header: Record<string, unknown>; events: TraceEvent[] } {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return {
    header: JSON.parse(lines[0]) as Record<string, unknown>,
    events: lines.slice(1).map((l) => JSON.parse(l) as TraceEvent),
  };
}

function healthy(config: Record<string, unknown> = {}): Session {
  return startSession({ ...demoCommand('healthy'), ...config });
}

async function handshakeAndSearch(session: Session): Promise<void> {
  await withTimeout(session.whenStarted(), 5000, 'start');
  await withTimeout(initialize(session, 5000), 5000, 'initialize');
  await withTimeout(listTools(session, 5000), 5000, 'tools/list');
  await withTimeout(callTool(session, 'search', { query: 'item' }).done, 5000, 'search');
}

describe('trace recorder', () => {
  it('keeps text within the budget, then size and sha-256 of the exact bytes', async () => {
    const file = path.join(tmp, 'budget.jsonl');
    const session = healthy();
    const recorder = TraceRecorder.start(session, { path: file, budgetBytes: 3000 });
    await handshakeAndSearch(session);
    await session.stop();
    await withTimeout(recorder.finish(), 5000, 'finish');
    const { header, events } = readTrace(file);
    expect(header).toMatchObject({
      format: 'pipescope-trace',
      version: 1,
      recordingBudgetBytes: 3000,
    });
    const frames = events.filter((e): e is TraceFrameEvent => e.type === 'frame');
    expect(frames.length).toBeGreaterThanOrEqual(7);
    const withText = frames.filter((f) => f.text !== undefined);
    const cut = frames.filter((f) => f.truncated);
    expect(withText.length).toBeGreaterThan(0);
    expect(cut.length).toBeGreaterThan(0);
    for (const f of withText) expect(Buffer.byteLength(f.text ?? '')).toBe(f.bytes);
    for (const f of cut) {
      expect(f.text).toBeUndefined();
      const page = session.frames.page(f.seq, 0, f.bytes);
      expect(page, `frame ${f.seq} held`).not.toBeNull();
      expect(f.sha256).toBe(
        createHash('sha256')
          .update(page?.data ?? '')
          .digest('hex'),
      );
    }
    // Only text is cut: metadata, requests, metrics and the end record are all there.
    const end = events.at(-1);
    expect(end?.type).toBe('end');
    if (end?.type === 'end') expect(end.recording.truncatedFrames).toBe(cut.length);
    expect(events.filter((e) => e.type === 'request').length).toBeGreaterThanOrEqual(6);
  });

  it('flushes while the session runs: the file shows a response within a second', async () => {
    const file = path.join(tmp, 'flush.jsonl');
    const session = healthy();
    TraceRecorder.start(session, { path: file });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    const answered = performance.now();
    await waitFor(
      () => readFileSync(file, 'utf8').includes('"kind":"response"'),
      1500,
      'the initialize response in the trace file',
    );
    expect(performance.now() - answered).toBeLessThan(1200);
    expect(readFileSync(file, 'utf8')).not.toContain('"type":"end"');
  });

  it('records oversize frames and the findings they raise', async () => {
    const file = path.join(tmp, 'oversize.jsonl');
    const session = healthy({ maxFrameBytes: 1000 });
    const recorder = TraceRecorder.start(session, { path: file });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    const { done } = session.send('tools/list', undefined, { timeoutMs: 5000 });
    // Discarded over the limit: its id read from the line, the request fails at once.
    expect((await withTimeout(done, 5000, 'tools/list to fail')).record.status).toBe('failed');
    await session.stop();
    await recorder.finish();
    const { events } = readTrace(file);
    const oversize = events.filter((e) => e.type === 'oversize');
    expect(oversize.map((e) => e.type === 'oversize' && e.phase)).toEqual(['start', 'end']);
    expect(events.some((e) => e.type === 'finding' && e.code === 'oversize-frame')).toBe(true);
    const failed = events.find(
      (e) =>
        e.type === 'request' && e.record.method === 'tools/list' && e.record.status === 'failed',
    );
    expect(failed?.type === 'request' && failed.record.error?.message).toMatch(
      /response discarded/,
    );
    expect(events.some((e) => e.type === 'cancel')).toBe(false);
  });

  it.each([
    ['a missing directory', () => path.join(tmp, 'no', 'such', 'dir', 't.jsonl'), /\(ENOENT\)/],
    ['a directory', () => tmp, /\(EISDIR\)/],
  ])('an unwritable path (%s) is one clear error, the session goes on', async (_, where, code) => {
    const errors: string[] = [];
    const session = healthy();
    const recorder = TraceRecorder.start(session, {
      path: where(),
      onError: (m) => errors.push(m),
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(code);
    expect(errors[0]).toMatch(/^trace: cannot write .*; recording stopped, the session goes on$/);
    expect(recorder.error).toBe(errors[0]);
    await handshakeAndSearch(session);
    await recorder.finish();
    expect(errors).toHaveLength(1);
    expect(existsSync(path.join(tmp, 'no'))).toBe(false);
  });

  it('a full disk (/dev/full) is one clear error, the session goes on', async () => {
    const errors: string[] = [];
    const session = healthy();
    const recorder = TraceRecorder.start(session, {
      path: '/dev/full',
      onError: (m) => errors.push(m),
    });
    await waitFor(() => errors.length > 0, 3000, 'the ENOSPC error');
    expect(errors[0]).toMatch(/no space left on device \(ENOSPC\)/);
    await handshakeAndSearch(session);
    expect(session.requests.all().map((r) => r.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    await session.stop();
    await withTimeout(recorder.finish(), 2000, 'finish after failure');
    expect(errors).toHaveLength(1);
  });
});
