/**
 * The host side of issue 22 (points 1, 2, 4), with real servers behind a real SessionManager:
 * distinct names, who ended a session, the snapshots of a server that is over (rates 0, the
 * last byte's age counting, one chart point), a start error's code, `session:config` without
 * environment values, `session:restart` in place (as it was, or edited with kept variables)
 * and `session:close-many`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import type { HostEvent, SessionConfigView } from '../../dist/shared/host-api.js';
import type { Result } from '../../dist/shared/result.js';
import type { SessionInfo, SessionSnapshot } from '../../dist/shared/session-info.js';
import { expectNothingLeftBehind, waitFor } from './helpers.js';

const manager = new SessionManager();
const events: HostEvent[] = [];
manager.subscribe((e) => events.push(e));
const scratch = mkdtempSync(path.join(tmpdir(), 'pipescope-restart-'));
afterAll(async () => {
  await manager.stopAll();
  rmSync(scratch, { recursive: true, force: true });
  expectNothingLeftBehind();
});

async function call<T>(channel: string, payload: unknown): Promise<T> {
  const r = (await manager.handle(channel, payload)) as Result<T>;
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
  return r.value;
}

function info(id: string): SessionInfo | undefined {
  return manager.infos().find((i) => i.id === id);
}

function snapshots(id: string): SessionSnapshot[] {
  return events.flatMap((e) =>
    e.type === 'snapshot' && e.snapshot.sessionId === id ? [e.snapshot] : [],
  );
}

/** Prints its variable to stderr, then waits on stdin like a server. */
const SHOWS_ENV = "console.error('value:' + process.env.PS_TOKEN); process.stdin.resume();";

describe('sessions in the host', () => {
  it('names sessions of one demo apart, and says who ended each', async () => {
    const a = await call<SessionInfo>('session:start', { demo: { id: 'healthy' } });
    const b = await call<SessionInfo>('session:start', { demo: { id: 'healthy' } });
    expect([a.title, b.title]).toEqual(['healthy', 'healthy #2']);
    await call('session:stop', { sessionId: b.id });
    expect(info(b.id)?.end?.by).toBe('user');
    expect(info(a.id)?.end ?? null).toBeNull();
    await call('session:close-many', { sessionIds: [a.id, b.id] });
    const c = await call<SessionInfo>('session:start', { demo: { id: 'healthy' } });
    expect(c.title).toBe('healthy');
    await call('session:close', { sessionId: c.id });
  });

  it('a crash: ended by the server, rates 0, the age counting, one chart point, then restart in place', async () => {
    const first = await call<SessionInfo>('session:start', { demo: { id: 'healthy' } });
    const crash = await call<SessionInfo>('session:start', { demo: { id: 'crash-mid-response' } });
    await waitFor(() => info(crash.id)?.serverInfo ?? undefined, 15_000, 'handshake');
    await call('request:call-tool', { sessionId: crash.id, name: 'crash', args: {} });
    await waitFor(() => info(crash.id)?.state === 'stopped', 15_000, 'the crash');
    expect(info(crash.id)?.exit).toEqual({ code: 3, signal: null });
    expect(info(crash.id)?.end?.by).toBe('server');
    const endedAt = snapshots(crash.id).length;
    await new Promise((r) => setTimeout(r, 2500));
    const after = snapshots(crash.id)
      .slice(endedAt)
      .filter((s) => s.info.state === 'stopped');
    // One a second while nobody touches it: the ages count.
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(
      after.every((s) => s.metrics.stdoutRate === 0 && s.metrics.inFlightFrameBytes === 0),
    ).toBe(true);
    const ages = after.map((s) => s.metrics.msSinceLastStdoutByte ?? 0);
    expect(ages.at(-1)).toBeGreaterThan((ages[0] ?? 0) + 900);
    expect(new Set(after.map((s) => s.point.t)).size).toBe(1);
    expect(new Set(after.map((s) => s.metrics.elapsedMs)).size).toBe(1);

    const again = await call<SessionInfo>('session:restart', { sessionId: crash.id });
    expect(again.id).not.toBe(crash.id);
    expect(again.title).toBe('crash-mid-response');
    expect(manager.infos().map((i) => i.id)).toEqual([first.id, again.id]);
    await waitFor(() => info(again.id)?.serverInfo ?? undefined, 15_000, 'the new handshake');
    expect(info(again.id)?.state).toBe('running');
    await call('session:close-many', { sessionIds: [first.id, again.id] });
  });

  it('start errors carry their code: a missing command, a missing folder', async () => {
    const missing = await call<SessionInfo>('session:start', {
      server: { command: 'pipescope-no-such-command-7' },
    });
    expect(missing.state).toBe('failed');
    expect(missing.startErrorCode).toBe('ENOENT');
    expect(missing.startError).toContain('command not found');
    const cwd = path.join(scratch, 'gone');
    const noFolder = await call<SessionInfo>('session:start', {
      server: { command: process.execPath, args: ['-e', '0'], cwd },
    });
    expect(noFolder.startErrorCode).toBe('ENOCWD');
    expect(noFolder.startError).toContain(cwd);
    await waitFor(() => info(missing.id)?.end, 5000, 'the end of a failed start');
    expect(info(missing.id)?.end?.by).toBe('server');
    await call('session:close-many', { sessionIds: [missing.id, noFolder.id] });
  });

  it('Edit & retry: the config without values, an edit that keeps a value, close-many keeps what runs', async () => {
    const bad = await call<SessionInfo>('session:start', {
      server: {
        command: 'pipescope-no-such-command-8',
        args: ['-e', SHOWS_ENV],
        env: { PS_TOKEN: 'canary-value-9' },
      },
      readerMode: 'drain',
    });
    const view = await call<SessionConfigView>('session:config', { sessionId: bad.id });
    expect(view).toEqual({
      readerMode: 'drain',
      server: {
        command: 'pipescope-no-such-command-8',
        args: ['-e', SHOWS_ENV],
        envNames: ['PS_TOKEN'],
      },
    });
    expect(JSON.stringify(view)).not.toContain('canary-value-9');

    const fixed = await call<SessionInfo>('session:restart', {
      sessionId: bad.id,
      start: { server: { command: process.execPath, args: ['-e', SHOWS_ENV] } },
      keepEnv: ['PS_TOKEN'],
    });
    expect(fixed.state).toBe('running');
    expect(fixed.title).toBe('node');
    expect(info(bad.id)).toBeUndefined();
    await waitFor(
      () => snapshots(fixed.id).some((s) => s.stderr.includes('value:canary-value-9')) || undefined,
      10_000,
      'the kept value in the server',
    );

    const done = await call<SessionInfo>('session:start', {
      server: { command: process.execPath, args: ['-e', 'process.exit(0)'] },
    });
    await waitFor(() => info(done.id)?.state === 'stopped', 10_000, 'the quick exit');
    const closed = await call<{ closed: string[]; kept: string[] }>('session:close-many', {
      sessionIds: [fixed.id, done.id, 'no-such-session'],
      onlyEnded: true,
    });
    expect(closed).toEqual({ closed: [done.id], kept: [fixed.id, 'no-such-session'] });
    expect(info(fixed.id)?.state).toBe('running');
    await call('session:close', { sessionId: fixed.id });
  });
});
