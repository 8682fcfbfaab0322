/**
 * A subscriber that comes late (a reload, a second window, a browser-mode reconnect) gets each
 * session's whole state, to itself alone: the requests, the frames the store still lists, the
 * stderr ring, the findings and the chart history; the subscribers already there are sent
 * nothing again (issue 18, items 7 and 11). Real server processes behind a real SessionManager.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { Result } from '../../dist/shared/result.js';
import type { SessionInfo, SessionSnapshot } from '../../dist/shared/session-info.js';
import { expectNothingLeftBehind, waitFor } from './helpers.js';

const manager = new SessionManager();
afterAll(async () => {
  await manager.stopAll();
  expectNothingLeftBehind();
});

async function call<T>(channel: string, payload: unknown): Promise<T> {
  const r = (await manager.handle(channel, payload)) as Result<T>;
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
  return r.value;
}

function snapshotsOf(events: HostEvent[], id: string): SessionSnapshot[] {
  return events.flatMap((e) =>
    e.type === 'snapshot' && e.snapshot.sessionId === id ? [e.snapshot] : [],
  );
}

describe('late subscribers', () => {
  it('get the whole state to themselves; the others get no replay of it', async () => {
    const first: HostEvent[] = [];
    manager.subscribe((e) => first.push(e));
    const info = await call<SessionInfo>('session:start', {
      demo: { id: 'stderr-flood', knobs: { bytes: '200000' } },
    });
    await waitFor(() => info.serverInfo ?? undefined, 15_000, 'handshake');
    const pings: (string | number)[] = [];
    for (let i = 0; i < 300; i++)
      pings.push(
        (await call<{ requestId: string | number }>('request:ping', { sessionId: info.id }))
          .requestId,
      );
    await waitFor(
      () =>
        snapshotsOf(first, info.id)
          .flatMap((s) => s.requests)
          .filter((r) => r.id === pings.at(-1) && r.status === 'completed').length > 0 || undefined,
      15_000,
      'the last ping to complete',
    );
    await new Promise((r) => setTimeout(r, 300));

    const late: HostEvent[] = [];
    const sinceLate = first.length;
    manager.subscribe((e) => late.push(e));
    const whole = snapshotsOf(late, info.id);
    expect(whole).toHaveLength(1);
    const s = whole[0];
    expect(s.replace).toBe(true);
    expect(s.requests.length).toBeGreaterThanOrEqual(302); // the handshake and every ping
    expect(s.frames.length).toBeGreaterThanOrEqual(600);
    expect(s.stderr.length).toBeGreaterThan(100_000);
    expect(s.series?.length).toBeGreaterThan(3);
    await new Promise((r) => setTimeout(r, 400));
    // The subscriber that was there all along: only what changed since, never the 300 again.
    const after = snapshotsOf(first.slice(sinceLate), info.id);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.max(...after.map((x) => x.requests.length))).toBeLessThan(10);
    expect(after.every((x) => x.replace === undefined)).toBe(true);
    // And the late one continues from its whole state with deltas.
    const next = snapshotsOf(late, info.id).slice(1);
    expect(next.length).toBeGreaterThan(0);
    expect(
      next.every(
        (x) => x.seq > s.seq && x.frames.every((f) => f.seq > (s.frames.at(-1)?.seq ?? 0)),
      ),
    ).toBe(true);
    await call('session:close', { sessionId: info.id });
  }, 40_000);
});
