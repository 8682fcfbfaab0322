/**
 * Process evidence through the host and into a trace, on a real server (subprocess-blocked:
 * a tree of two, the child blocked in write() on a full pipe): SessionInfo says sampling
 * works, live snapshots carry the newest sample (at most one per snapshot), a late subscriber
 * gets the latest sample and the sparkline points before it, and the recording round-trips:
 * process lines and the finding's evidence in the file → TraceReader → the offline state at a
 * moment shows the tree → the Perfetto export has an activity track and a CPU counter for
 * each process → the report counts the samples as the live one did.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { toChromeTrace } from '../../dist/electron/engine/trace/export/perfetto.js';
import { TraceReader } from '../../dist/electron/engine/trace/reader.js';
import { TraceSession } from '../../dist/electron/engine/trace/trace-session.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { Result } from '../../dist/shared/result.js';
import type { SessionInfo, SessionSnapshot } from '../../dist/shared/session-info.js';
import type { TraceEvent } from '../../dist/shared/trace-format.js';
import { expectNothingLeftBehind, waitFor } from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-process-host-'));
const manager = new SessionManager();
const events: HostEvent[] = [];
const unsubscribe = manager.subscribe((e) => events.push(e));
afterAll(async () => {
  unsubscribe();
  await manager.stopAll();
  rmSync(tmp, { recursive: true, force: true });
  expectNothingLeftBehind();
});

async function call<T>(channel: string, payload: unknown): Promise<T> {
  const r = (await manager.handle(channel, payload)) as Result<T>;
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.value;
}

function snapshots(id: string): SessionSnapshot[] {
  return events.flatMap((e) =>
    e.type === 'snapshot' && e.snapshot.sessionId === id ? [e.snapshot] : [],
  );
}

const linux = process.platform === 'linux';

describe.runIf(linux)('process evidence through the host', () => {
  const file = path.join(tmp, 'blocked.jsonl');
  let id = '';
  let childPid = 0;

  it('live: info says available, snapshots carry the tree, the finding names the child', async () => {
    const info = await call<SessionInfo>('session:start', { demo: { id: 'subprocess-blocked' } });
    id = info.id;
    expect(info.process).toEqual({ available: true });
    await waitFor(
      () => snapshots(id).some((s) => s.info.serverInfo) || undefined,
      15_000,
      'handshake',
    );
    await call('session:record', { sessionId: id, record: true, path: file });
    await call('request:call-tool', { sessionId: id, name: 'run', args: {} });
    const finding = await waitFor(
      () =>
        snapshots(id)
          .at(-1)
          ?.findings.find((f) => f.code === 'subprocess-blocked' && f.evidence?.pid !== undefined),
      15_000,
      'subprocess-blocked with evidence',
    );
    childPid = finding.evidence?.pid ?? 0;
    const withSample = await waitFor(
      () => snapshots(id).findLast((s) => s.process?.processes.some((p) => p.pid === childPid)),
      5000,
      'a sample with the child',
    );
    const child = withSample.process?.processes.find((p) => p.pid === childPid);
    expect(child?.depth).toBe(1);
    expect(child?.activity.kind).toBe('writing');
    // One sample per snapshot at most, and not in every snapshot (the sampler is slower).
    const all = snapshots(id);
    expect(all.filter((s) => s.process).length).toBeLessThan(all.length);
  });

  it('a late subscriber gets the latest sample and the points before it', () => {
    const late: HostEvent[] = [];
    const off = manager.subscribe((e) => late.push(e));
    off();
    const whole = late.flatMap((e) =>
      e.type === 'snapshot' && e.snapshot.sessionId === id ? [e.snapshot] : [],
    );
    expect(whole).toHaveLength(1);
    expect(whole[0].replace).toBe(true);
    expect(whole[0].process?.processes.map((p) => p.pid)).toContain(childPid);
    const points = whole[0].processHistory ?? [];
    expect(points.filter((p) => p.pid === childPid).length).toBeGreaterThan(1);
  });

  it('the recording round-trips: offline state, Perfetto tracks, the report’s process', async () => {
    await call('session:stop', { sessionId: id });
    await waitFor(
      () => snapshots(id).at(-1)?.info.recording?.active === false || undefined,
      10_000,
      'recording finished',
    );
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0].process).toEqual({ available: true });
    const body = lines.slice(1) as unknown as TraceEvent[];
    const samples = body.filter((e) => e.type === 'process');
    expect(samples.length).toBeGreaterThan(1);
    // Bounded: never two lines within half a second (but the last, the tree as last seen
    // with the final count, written at the end).
    for (let i = 1; i < samples.length - 1; i++)
      expect(samples[i].t - samples[i - 1].t).toBeGreaterThanOrEqual(499);
    const recorded = body.find((e) => e.type === 'finding' && e.code === 'subprocess-blocked');
    expect(recorded?.type === 'finding' && recorded.evidence?.pid).toBe(childPid);

    const trace = await TraceSession.load(await TraceReader.open(file));
    try {
      const at = recorded?.t ?? 0;
      const state = await trace.stateAt(at + 600);
      expect(state.snapshot.process?.processes.map((p) => p.pid)).toContain(childPid);
      expect(
        state.snapshot.findings.find((f) => f.code === 'subprocess-blocked')?.evidence?.pid,
      ).toBe(childPid);
      const perfetto = toChromeTrace(await trace.summarize());
      const slices = perfetto.traceEvents.filter((e) => e.ph === 'X' && e.pid === childPid);
      expect(slices.some((e) => e.name.startsWith('writing stdout'))).toBe(true);
      expect(
        perfetto.traceEvents.some((e) => e.ph === 'C' && e.name === 'CPU %' && e.pid === childPid),
      ).toBe(true);
      const end = await trace.reportAt(trace.durationMs);
      expect(end.process.available).toBe(true);
      expect(end.process.samples).toBeGreaterThanOrEqual(samples.length);
    } finally {
      await trace.close();
    }
  });
});
