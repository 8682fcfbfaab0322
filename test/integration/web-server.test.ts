/**
 * Browser mode working end to end: a real demo server driven over the WebSocket (start,
 * snapshots, tools/call echo, stop, nothing left behind, close() stops what still runs), and
 * snapshot coalescing for a socket that does not read (deltas never lost, calls answered).
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { startWebServer, type WebServer } from '../../dist/electron/web/server.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import { emptyLiveMetrics } from '../../dist/shared/metrics.js';
import { type RequestRecord, sentRecord } from '../../dist/shared/requests.js';
import {
  quietPoint,
  type SessionInfo,
  type SessionSnapshot,
} from '../../dist/shared/session-info.js';
import { childrenOf, groupMembers, running } from '../fixtures/processes.js';
import { waitFor, withTimeout } from './helpers.js';
import { connect, makeStaticDir, type WebServerBackend } from './web-helpers.js';

const dir = makeStaticDir();
const servers: WebServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir.base, { recursive: true, force: true }));

async function serve(manager: WebServerBackend): Promise<WebServer> {
  const s = await startWebServer({ port: 0, staticDir: dir.root, manager });
  servers.push(s);
  return s;
}

describe('end to end over the WebSocket with a real demo server', () => {
  it('healthy: start → snapshots → echo completes → stop → close leaves nothing', async () => {
    const s = await serve(new SessionManager());
    const client = await connect(s);
    const started = await client.call('session:start', { demo: { id: 'healthy', knobs: {} } });
    if (!started.ok) throw new Error(started.error.message);
    const info = started.value as SessionInfo;
    expect(info.state).toBe('running');
    expect(info.pid).toBeGreaterThan(0);
    const pid = info.pid ?? -1;

    // The handshake finishes in the background; a snapshot then shows the tools.
    await client.waitFor(
      (e) =>
        e.type === 'snapshot' &&
        e.snapshot.sessionId === info.id &&
        e.snapshot.info.tools.some((t) => t.name === 'echo')
          ? true
          : undefined,
      10_000,
      'a snapshot with the echo tool',
    );
    const call = await client.call('request:call-tool', {
      sessionId: info.id,
      name: 'echo',
      args: { text: 'hello over ws' },
    });
    if (!call.ok) throw new Error(call.error.message);
    const { requestId } = call.value as { requestId: string | number };
    const done = await client.waitFor(
      (e) =>
        e.type === 'snapshot'
          ? e.snapshot.requests.find((r) => r.id === requestId && r.status !== 'pending')
          : undefined,
      10_000,
      'the echo request to finish',
    );
    expect(done.status).toBe('completed');
    expect(done.method).toBe('tools/call');
    expect(done.responseBytes).toBeGreaterThan(0);
    // Frame previews are decoded only for the summaries a snapshot carries (the session's
    // frame store, asked by the snapshot builder): the echo response shows its text.
    const row = await client.waitFor(
      (e) =>
        e.type === 'snapshot'
          ? e.snapshot.frames.find((f) => f.kind === 'response' && f.id === requestId)
          : undefined,
      5000,
      'the echo response in the frame log',
    );
    expect(row.preview).toContain('hello over ws');

    // A page that connects later (reload, second tab) still gets the idle session's state.
    const late = await connect(s);
    const seen = await late.waitFor(
      (e) =>
        e.type === 'snapshot' && e.snapshot.sessionId === info.id
          ? e.snapshot.requests.find((r) => r.id === requestId)
          : undefined,
      5000,
      'a late subscriber to get the finished request',
    );
    expect(seen.status).toBe('completed');

    expect(await client.call('session:stop', { sessionId: info.id })).toEqual({
      ok: true,
      value: null,
    });
    await client.waitFor(
      (e) =>
        e.type === 'sessions' && e.sessions.find((x) => x.id === info.id)?.state === 'stopped'
          ? true
          : undefined,
      5000,
      'the session list to show it stopped',
    );
    expect(running(pid)).toBe(false);
    await s.close();
    expect((await client.whenClosed()).code).toBe(1001);
    expect(groupMembers(pid)).toEqual([]);
  });

  it('close() stops a session that is still running (stop ladder) and closes the sockets', async () => {
    const s = await serve(new SessionManager());
    const client = await connect(s);
    const started = await client.call('session:start', { demo: { id: 'healthy', knobs: {} } });
    if (!started.ok) throw new Error(started.error.message);
    const pid = (started.value as SessionInfo).pid ?? -1;
    expect(running(pid)).toBe(true);
    await withTimeout(s.close(), 10_000, 'server close');
    expect(running(pid)).toBe(false);
    expect(groupMembers(pid)).toEqual([]);
    expect(client.closed).not.toBeNull();
    expect(childrenOf()).toEqual([]);
    const after = await fetch(`http://127.0.0.1:${s.port}/`).catch((e: Error) => e);
    expect(after).toBeInstanceOf(Error);
  });
});

describe('backpressure: a socket that does not read', () => {
  const record = (id: number): RequestRecord => ({
    ...sentRecord({ id, method: 'tools/call', sentAt: id, requestBytes: 10 }),
    status: 'completed',
    latencyMs: 1,
    responseBytes: 10,
  });
  const snapshot = (seq: number, pad: string): SessionSnapshot => ({
    sessionId: 's1',
    seq,
    // Only the fields the bridge reads are real; the padding makes each snapshot ~1 MiB.
    info: { id: 's1', title: pad } as SessionInfo,
    metrics: emptyLiveMetrics(),
    point: quietPoint(seq),
    requests: [record(seq)],
    frames: [],
    framesSkipped: 0,
    frameSizes: [],
    stderr: `line ${seq}\n`,
    stderrSkipped: 0,
    findings: [],
  });

  it('snapshots are merged, never lost: every request delta and all stderr arrive; calls are answered', async () => {
    const sink: { push: ((e: HostEvent) => void) | null } = { push: null };
    const backend: WebServerBackend = {
      dispatch: async () => ({ ok: true, value: 'pong' }),
      subscribe: (l) => {
        sink.push = l;
        return () => {
          sink.push = null;
        };
      },
      stopAll: async () => {},
    };
    const s = await serve(backend);
    const client = await connect(s);
    await waitFor(() => sink.push !== null, 2000, 'the socket to subscribe');
    client.ws.pause();
    const pad = 'x'.repeat(1024 * 1024);
    const COUNT = 60;
    for (let seq = 1; seq <= COUNT; seq++)
      sink.push?.({ type: 'snapshot', snapshot: snapshot(seq, pad) });
    const answer = client.call('session:list', {});
    expect(s.stats().snapshotsCoalesced).toBeGreaterThan(0);
    client.ws.resume();
    expect(await answer).toEqual({ ok: true, value: 'pong' });
    await client.waitFor(
      (e) => (e.type === 'snapshot' && e.snapshot.seq === COUNT ? true : undefined),
      20_000,
      'the last snapshot',
    );
    const snaps = client.events.flatMap((e) => (e.type === 'snapshot' ? [e.snapshot] : []));
    expect(snaps.length).toBeLessThan(COUNT);
    const ids = new Set(snaps.flatMap((x) => x.requests.map((r) => r.id)));
    expect(ids.size).toBe(COUNT);
    const stderr = snaps.map((x) => x.stderr).join('');
    expect(stderr.split('\n').filter(Boolean)).toHaveLength(COUNT);
  });
});
