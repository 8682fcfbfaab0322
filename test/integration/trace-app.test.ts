/**
 * The app's trace channels through the real SessionManager and a real demo server: record a
 * session from `session:record` → stop → `trace:open` → `trace:seek` to the middle and to the
 * end (the end state's report equals `pipescope report --json` of the same file), frame text on
 * demand through `frame:page`, `trace:upload` in chunks, `trace:export`, an unwritable path as a
 * Result error and a notice, and `trace:replay` against the same demo.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import type { FramePage } from '../../dist/shared/frames.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import type { Result } from '../../dist/shared/result.js';
import type { SessionInfo } from '../../dist/shared/session-info.js';
import type {
  ReplayReport,
  TraceExport,
  TraceSeekResult,
  TraceUploadAck,
} from '../../dist/shared/trace-api.js';
import { expectNothingLeftBehind, runCli, waitFor } from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-trace-app-'));
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

function sessionInfo(id: string): SessionInfo | undefined {
  const lists = events.filter((e) => e.type === 'sessions');
  const last = lists.at(-1);
  return last?.type === 'sessions' ? last.sessions.find((s) => s.id === id) : undefined;
}

describe('trace channels through the SessionManager', () => {
  const file = path.join(tmp, 'recorded.jsonl');
  let traceId = '';
  let opened: SessionInfo;

  beforeAll(async () => {
    const info = await call<SessionInfo>('session:start', { demo: { id: 'malformed-json' } });
    await waitFor(() => sessionInfo(info.id)?.serverInfo ?? undefined, 15_000, 'handshake');
    const rec = await call<{ path: string }>('session:record', {
      sessionId: info.id,
      record: true,
      path: file,
    });
    expect(rec.path).toBe(file);
    expect(sessionInfo(info.id)?.recording).toMatchObject({ path: file, active: true });
    // A first call, a second of quiet (one metrics sample at least), then the broken line.
    await call('request:call-tool', { sessionId: info.id, name: 'echo', args: { text: 'one' } });
    await new Promise((r) => setTimeout(r, 1200));
    await call('request:call-tool', { sessionId: info.id, name: 'broken', args: {} });
    await new Promise((r) => setTimeout(r, 1200));
    await call('session:stop', { sessionId: info.id });
    await waitFor(
      () => sessionInfo(info.id)?.recording?.active === false,
      10_000,
      'recording finished',
    );
    opened = await call<SessionInfo>('trace:open', { path: file });
    traceId = opened.id;
  }, 60_000);

  it('lists the trace as a read-only session with its duration and markers', () => {
    expect(opened.trace).toMatchObject({ path: file, fileName: 'recorded.jsonl' });
    expect(opened.trace?.durationMs).toBeGreaterThan(2000);
    expect(opened.trace?.markers.some((m) => m.label === 'stdout-pollution')).toBe(true);
    expect(opened.command).toBe(process.execPath);
    expect(sessionInfo(traceId)?.trace).not.toBeNull();
    // The recording ends as the session did: its last state line is `stopped`, before `end`.
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const states = lines.filter((e) => e.type === 'state').map((e) => e.state);
    expect(states.at(-1)).toBe('stopped');
    expect(lines.at(-1).type).toBe('end');
    expect(opened.state).toBe('stopped');
  });

  it('seeks: 0 is empty, the middle has the first call only, the end is the whole session', async () => {
    const zero = await call<TraceSeekResult>('trace:seek', { traceId, t: 0 });
    expect(zero.snapshot.replace).toBe(true);
    expect(zero.snapshot.metrics.stdoutBytes).toBe(0);
    expect(zero.snapshot.findings).toEqual([]);
    expect(zero.snapshot.requests).toEqual([]);

    const duration = opened.trace?.durationMs ?? 0;
    const pollutionAt = opened.trace?.markers.find((m) => m.label === 'stdout-pollution')?.t ?? 0;
    const middle = await call<TraceSeekResult>('trace:seek', { traceId, t: pollutionAt - 500 });
    expect(middle.snapshot.findings.map((f) => f.code)).not.toContain('stdout-pollution');
    expect(middle.snapshot.requests.map((r) => r.method)).toContain('tools/call');
    expect(middle.snapshot.frames.length).toBeGreaterThan(0);
    expect(middle.snapshot.frames.every((f) => f.t <= pollutionAt)).toBe(true);

    const end = await call<TraceSeekResult>('trace:seek', { traceId, t: duration });
    expect(end.snapshot.findings.map((f) => f.code)).toContain('stdout-pollution');
    expect(end.snapshot.metrics.parseErrors).toBe(1);
    expect(end.snapshot.seq).toBeGreaterThan(middle.snapshot.seq);
    // The same state was pushed to subscribers.
    expect(events.some((e) => e.type === 'snapshot' && e.snapshot.seq === end.snapshot.seq)).toBe(
      true,
    );

    const cli = await runCli(['report', file, '--json']);
    expect(end.report).toEqual(JSON.parse(cli.stdout) as ProbeReport);
    expect(end.report.metrics.stdoutBytes).toBe(end.snapshot.metrics.stdoutBytes);
    // Mid-trace the report is rebuilt from the events up to t: fewer bytes than at the end.
    expect(middle.report.metrics.stdoutBytes).toBeLessThan(end.report.metrics.stdoutBytes);
  });

  it('pages a frame’s recorded text on demand', async () => {
    const end = await call<TraceSeekResult>('trace:seek', { traceId, t: 1e12 });
    const frame = end.snapshot.frames.find((f) => f.kind === 'parse-error');
    expect(frame).toBeDefined();
    const page = await call<FramePage>('frame:page', {
      sessionId: traceId,
      seq: frame?.seq,
      offset: 0,
      length: 1024,
    });
    expect(page.text).toContain('notifications/message');
    expect(page.totalBytes).toBe(frame?.bytes);
  });

  it('exports Perfetto, HTML and Markdown for the trace and for the recorded live session', async () => {
    const md = await call<TraceExport>('trace:export', { traceId, format: 'md' });
    expect(md.fileName).toBe('recorded.md');
    expect(md.text).toContain('stdout-pollution');
    const perfetto = await call<TraceExport>('trace:export', { traceId, format: 'perfetto' });
    expect(JSON.parse(perfetto.text)).toHaveProperty('traceEvents');
    const html = await call<TraceExport>('trace:export', { traceId, format: 'html' });
    expect(html.text).toMatch(/^<!doctype html>/i);
    const r = await manager.handle('trace:export', { format: 'md' });
    expect(r).toMatchObject({ ok: false, error: { code: 'EINVAL' } });
  });

  it('opens an upload sent in chunks like a path', async () => {
    const bytes = readFileSync(file);
    const chunk = 4096;
    let ack: TraceUploadAck | null = null;
    for (let seq = 0; seq * chunk < bytes.length; seq++) {
      const part = bytes.subarray(seq * chunk, (seq + 1) * chunk);
      ack = await call<TraceUploadAck>('trace:upload', {
        uploadId: 'upload-test-1',
        seq,
        chunkBase64: part.toString('base64'),
        done: (seq + 1) * chunk >= bytes.length,
        fileName: 'dropped.jsonl',
      });
    }
    expect(ack?.received).toBe(statSync(file).size);
    expect(ack?.session?.trace?.fileName).toBe('dropped.jsonl');
    const end = await call<TraceSeekResult>('trace:seek', { traceId: ack?.session?.id, t: 1e12 });
    const cli = await runCli(['report', file, '--json']);
    expect(end.report).toEqual(JSON.parse(cli.stdout));
    const outOfOrder = await manager.handle('trace:upload', {
      uploadId: 'upload-test-2',
      seq: 3,
      text: '{}',
      done: true,
    });
    expect(outOfOrder).toMatchObject({ ok: false, error: { code: 'EUPLOAD' } });
  });

  it('never overwrites a file unless asked; a relative name goes to the traces folder, and says where', async () => {
    const traces = mkdtempSync(path.join(tmpdir(), 'pipescope-traces-dir-'));
    const saved = process.env.PIPESCOPE_TRACE_DIR;
    process.env.PIPESCOPE_TRACE_DIR = traces;
    const info = await call<SessionInfo>('session:start', { demo: { id: 'healthy' } });
    try {
      const existing = path.join(traces, 'keep.jsonl');
      writeFileSync(existing, 'evidence\n');
      const refused = await manager.handle('session:record', {
        sessionId: info.id,
        record: true,
        path: existing,
      });
      expect(refused).toMatchObject({ ok: false, error: { code: 'EEXIST' } });
      expect(readFileSync(existing, 'utf8')).toBe('evidence\n');
      // A bare name: the traces folder, whatever the server's cwd or ours.
      const rec = await call<{ path: string }>('session:record', {
        sessionId: info.id,
        record: true,
        path: 'named.jsonl',
      });
      expect(rec.path).toBe(path.join(traces, 'named.jsonl'));
      await call('session:record', { sessionId: info.id, record: false });
      const replaced = await call<{ path: string }>('session:record', {
        sessionId: info.id,
        record: true,
        path: existing,
        overwrite: true,
      });
      expect(replaced.path).toBe(existing);
      await call('session:record', { sessionId: info.id, record: false });
      expect(readFileSync(existing, 'utf8')).toMatch(/^\{"format":"pipescope-trace"/);
    } finally {
      if (saved === undefined) delete process.env.PIPESCOPE_TRACE_DIR;
      else process.env.PIPESCOPE_TRACE_DIR = saved;
      await call('session:close', { sessionId: info.id });
      rmSync(traces, { recursive: true, force: true });
    }
  });

  it('refuses an unwritable path with a Result error and a notice; the session goes on', async () => {
    const info = await call<SessionInfo>('session:start', { demo: { id: 'healthy' } });
    // Under /proc (recursive mkdir would loop there) and under a regular file.
    for (const bad of ['/proc/pipescope-cannot-write/x.jsonl', path.join(file, 'x.jsonl')]) {
      const before = events.length;
      const r = await manager.handle('session:record', {
        sessionId: info.id,
        record: true,
        path: bad,
      });
      expect(r).toMatchObject({ ok: false, error: { code: 'ETRACE' } });
      expect(events.slice(before).some((e) => e.type === 'notice' && e.level === 'error')).toBe(
        true,
      );
    }
    expect((await manager.handle('request:ping', { sessionId: info.id })).ok).toBe(true);
    await call('session:close', { sessionId: info.id });
  });

  it('replays the trace against the same demo and reports the differences', async () => {
    const replay = await call<ReplayReport>('trace:replay', {
      traceId,
      command: opened.command,
      args: opened.args,
      timing: 'fast',
    });
    expect(replay.startError).toBeNull();
    expect(replay.requests.length).toBeGreaterThan(0);
    expect(replay.findings.recorded).toContain('stdout-pollution');
    expect(replay.findings.replayed).toContain('stdout-pollution');
  }, 30_000);

  it('closes a trace session like any tab', async () => {
    await call('session:close', { sessionId: traceId });
    expect(sessionInfo(traceId)).toBeUndefined();
    const r = await manager.handle('trace:seek', { traceId, t: 0 });
    expect(r).toMatchObject({ ok: false, error: { code: 'ENOTRACE' } });
  });
});

describe('trace:open of what is no trace', () => {
  it('leaves no tab behind: 20 failed opens, then a trace still opens (16 is the limit)', async () => {
    const cut = path.join(tmp, 'cut-header.jsonl');
    writeFileSync(cut, '{"format":"pipescope-trace","ver');
    const damaged = path.join(tmp, 'only-damage.jsonl');
    const traces = () => manager.infos().filter((s) => s.trace !== null);
    const before = traces().length;
    for (let i = 0; i < 20; i++) {
      const r = await manager.handle('trace:open', { path: i % 2 ? cut : '/dev/zero' });
      expect(r).toMatchObject({ ok: false, error: { code: 'ETRACE' } });
    }
    expect(traces()).toHaveLength(before);
    const good = path.join(tmp, 'good.jsonl');
    await runCli(['probe', '--demo', 'healthy', '--trace', good]);
    writeFileSync(damaged, `${readFileSync(good, 'utf8')}{"t":1,"type":"request","record":null}\n`);
    const opened = await call<SessionInfo>('trace:open', { path: damaged });
    expect(opened.trace?.skippedLines).toBe(1);
    expect(traces()).toHaveLength(before + 1);
    await call('session:close', { sessionId: opened.id });
  }, 30_000);

  it.runIf(process.platform === 'linux')(
    'four FIFOs opened at once are refused at once, and the host keeps answering',
    async () => {
      const fifos = [0, 1, 2, 3].map((i) => path.join(tmp, `fifo-${i}`));
      for (const f of fifos) spawnSync('mkfifo', [f]);
      const started = Date.now();
      const opens = fifos.map((f) => manager.handle('trace:open', { path: f }));
      const list = await manager.handle('session:list', {});
      expect(list.ok).toBe(true);
      for (const r of await Promise.all(opens))
        expect(r).toMatchObject({ ok: false, error: { code: 'ETRACE', message: /a FIFO/ } });
      expect(Date.now() - started).toBeLessThan(3000);
    },
  );
});
