/**
 * The app's side of the tap link on a real Unix socket: who may publish, what a tap's events
 * become, and that a second Pipescope or a dead one's socket file are handled.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../shared/host-api.js';
import type { SessionInfo, TapInfo } from '../../../shared/session-info.js';
import { SessionManager } from './session-manager.js';
import { readTapToken, tapLinkPaths } from './tap-link.js';

const managers: SessionManager[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const m of managers.splice(0)) await m.stopAll();
});

const TAP: TapInfo = {
  name: 'fs',
  host: { label: 'Test Host', pid: 1, command: 'test-host' },
  tapPid: 2,
  server: { command: 'node', args: ['srv.js'], cwd: '/' },
};

async function app(dir: string): Promise<SessionManager> {
  const m = new SessionManager();
  managers.push(m);
  expect(await m.startTaps(dir)).toBeNull();
  return m;
}

function dial(dir: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(tapLinkPaths(dir).socket);
    sockets.push(s);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

const closed = (s: Socket): Promise<void> => new Promise((r) => s.once('close', () => r()));
const send = (s: Socket, msg: object): void => void s.write(`${JSON.stringify(msg)}\n`);

function info(id: string): SessionInfo {
  return { id, title: 'Test Host → fs', state: 'running' } as SessionInfo;
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('tap hub', () => {
  it('a 0700 folder, a 0600 token of 32 random bytes', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'tap-hub-')), 'run');
    await app(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(tapLinkPaths(dir).token).mode & 0o777).toBe(0o600);
    expect(readTapToken(dir)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a wrong token, no hello, or garbage: the connection is closed and nothing is listed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-hub-'));
    const m = await app(dir);
    const wrong = await dial(dir);
    send(wrong, { type: 'hello', token: 'f'.repeat(64), version: 1, tap: TAP });
    send(wrong, { type: 'event', event: { type: 'sessions', sessions: [info('x')] } });
    await closed(wrong);
    const garbage = await dial(dir);
    garbage.write('not json\n');
    await closed(garbage);
    const silent = await dial(dir);
    await closed(silent); // within the hello timeout
    expect(m.infos()).toEqual([]);
  }, 10_000);

  it("a tap with the token: its sessions are listed as the tap's, its snapshots reach subscribers", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-hub-'));
    const m = await app(dir);
    const events: HostEvent[] = [];
    m.subscribe((e) => events.push(e));
    const tap = await dial(dir);
    send(tap, { type: 'hello', token: readTapToken(dir), version: 1, tap: TAP });
    send(tap, { type: 'event', event: { type: 'sessions', sessions: [info('s1')] } });
    await until(() => m.infos().some((s) => s.id === 's1'));
    expect(m.infos().find((s) => s.id === 's1')?.tap).toEqual({ ...TAP, replay: true });
    send(tap, {
      type: 'event',
      event: { type: 'notice', level: 'info', text: 'hi', sessionId: 's1' },
    });
    await until(() => events.some((e) => e.type === 'notice' && e.text === 'hi'));
    // A call on its session goes to the tap, and its answer comes back.
    tap.on('data', (d: Buffer) => {
      const call = JSON.parse(d.toString().split('\n')[0] as string) as { id: number };
      send(tap, { type: 'result', id: call.id, result: { ok: true, value: { path: '/x' } } });
    });
    expect(await m.handle('tap:dump', { sessionId: 's1' })).toEqual({
      ok: true,
      value: { path: '/x' },
    });
    // A session of the app's own (none here) is not the tap's: the app answers itself.
    expect((await m.handle('tap:dump', { sessionId: 'nope' })).ok).toBe(false);
    tap.destroy();
    await until(() => m.infos().length === 0);
  });

  it("a subscriber that comes later gets each tapped session's whole state, to itself alone", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-hub-'));
    const m = await app(dir);
    const early: HostEvent[] = [];
    m.subscribe((e) => early.push(e));
    const tap = await dial(dir);
    send(tap, { type: 'hello', token: readTapToken(dir), version: 1, tap: TAP });
    send(tap, { type: 'event', event: { type: 'sessions', sessions: [info('s1'), info('s2')] } });
    await until(() => m.infos().length === 2);
    // The tap answers tap:snapshot for s1 with s1's state, for s2 with s1's (left out).
    let buf = '';
    tap.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const call = JSON.parse(buf.slice(0, i)) as {
          id: number;
          channel: string;
          payload: { sessionId: string };
        };
        buf = buf.slice(i + 1);
        const value = { sessionId: 's1', replace: true, asked: call.payload.sessionId };
        if (call.channel === 'tap:snapshot')
          send(tap, { type: 'result', id: call.id, result: { ok: true, value } });
      }
    });
    const late: HostEvent[] = [];
    m.subscribe((e) => late.push(e));
    await until(() => late.some((e) => e.type === 'snapshot'));
    await new Promise((r) => setTimeout(r, 100));
    const wholes = late.filter((e) => e.type === 'snapshot');
    expect(wholes).toEqual([
      { type: 'snapshot', snapshot: { sessionId: 's1', replace: true, asked: 's1' } },
    ]);
    expect(early.some((e) => e.type === 'snapshot')).toBe(false);
  });

  it("malformed messages end that tap's connection, never the app; no tap claims another's ids", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-hub-'));
    const m = await app(dir);
    const events: HostEvent[] = [];
    m.subscribe((e) => events.push(e));
    const hello = { type: 'hello', token: readTapToken(dir), version: 1, tap: TAP };
    for (const bad of [
      { type: 'event' },
      null,
      { type: 'event', event: { type: 'sessions', sessions: 'x' } },
      { type: 'result', id: 'x' },
    ]) {
      const s = await dial(dir);
      send(s, hello);
      s.write(`${JSON.stringify(bad)}\n`);
      await closed(s);
    }
    const first = await dial(dir);
    send(first, hello);
    send(first, { type: 'event', event: { type: 'sessions', sessions: [info('a'), null] } });
    await until(() => m.infos().some((s) => s.id === 'a'));
    const second = await dial(dir);
    send(second, hello);
    send(second, { type: 'event', event: { type: 'sessions', sessions: [info('a'), info('b')] } });
    await until(() => m.infos().some((s) => s.id === 'b'));
    expect(m.infos().filter((s) => s.id === 'a')).toHaveLength(1); // still the first tap's
    // Events only for ids a tap listed.
    send(second, {
      type: 'event',
      event: { type: 'notice', level: 'info', text: 'forged', sessionId: 'a' },
    });
    send(second, {
      type: 'event',
      event: { type: 'notice', level: 'info', text: 'mine', sessionId: 'b' },
    });
    await until(() => events.some((e) => e.type === 'notice' && e.text === 'mine'));
    expect(events.some((e) => e.type === 'notice' && e.text === 'forged')).toBe(false);
  });

  it("a second Pipescope leaves the first its socket; a dead one's file is taken over", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-hub-'));
    await app(dir);
    const token = readTapToken(dir);
    const second = new SessionManager();
    managers.push(second);
    expect(await second.startTaps(dir)).toMatch(/another Pipescope already shows taps/);
    expect(readTapToken(dir)).toBe(token); // the first one's token is untouched
    const stale = mkdtempSync(path.join(tmpdir(), 'tap-hub-'));
    writeFileSync(tapLinkPaths(stale).socket, ''); // a file nothing listens on
    await app(stale);
    const s = await dial(stale);
    expect(s.readyState).toBe('open');
  });
});
