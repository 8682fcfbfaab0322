/**
 * Browser mode's WebSocket under attack (HARDENING.md 24-25, "Hostile inputs: Browser mode"):
 * upgrades need our exact Origin (always present), a loopback Host and the token; once in,
 * malformed, binary and oversized messages are refused without starting anything. Raw `ws`
 * clients against the built server with a real SessionManager behind it.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { startWebServer, type WebServer } from '../../dist/electron/web/server.js';
import { makeStaticDir, upgrade } from './web-helpers.js';

const dir = makeStaticDir();
const manager = new SessionManager();
let server: WebServer;
let port: number;
let token: string;
let ours: string; // our origin

beforeAll(async () => {
  server = await startWebServer({ port: 0, staticDir: dir.root, manager });
  ({ port, token } = server);
  ours = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir.base, { recursive: true, force: true });
});

async function sessionCount(): Promise<number> {
  const r = await manager.handle('session:list', {});
  expect(r.ok).toBe(true);
  return r.ok ? (r.value as unknown[]).length : -1;
}

describe('WebSocket upgrade', () => {
  it('refuses a foreign, null or missing Origin (403), a foreign Host (403), no token (401)', async () => {
    const cases: { opts: Parameters<typeof upgrade>[1]; status: number }[] = [
      { opts: { target: `/ws?token=${token}`, origin: 'http://evil.test' }, status: 403 },
      { opts: { target: `/ws?token=${token}`, origin: 'null' }, status: 403 },
      {
        opts: { target: `/ws?token=${token}`, origin: `http://127.0.0.1:${port + 1}` },
        status: 403,
      },
      { opts: { target: `/ws?token=${token}` }, status: 403 },
      {
        opts: {
          target: `/ws?token=${token}`,
          origin: ours,
          headers: { Host: `evil.test:${port}` },
        },
        status: 403,
      },
      { opts: { target: '/ws', origin: ours }, status: 401 },
      { opts: { target: `/ws?token=${token.slice(0, 42)}`, origin: ours }, status: 401 },
      { opts: { target: `/other?token=${token}`, origin: ours }, status: 404 },
    ];
    for (const c of cases) {
      const r = await upgrade(port, c.opts);
      expect('status' in r ? r.status : 'connected', JSON.stringify(c.opts)).toBe(c.status);
    }
    expect(server.stats().sockets).toBe(0);
  });

  it('with the token and our Origin it connects, and session:list answers', async () => {
    const r = await upgrade(port, { target: `/ws?token=${token}`, origin: ours });
    if (!('ws' in r)) throw new Error(`refused with ${r.status}`);
    const client = r.client;
    try {
      const sessions = await client.waitFor(
        (e) => (e.type === 'sessions' ? e.sessions : undefined),
        2000,
        'the initial session list',
      );
      expect(sessions).toEqual([]);
      expect(await client.call('session:list', {})).toEqual({ ok: true, value: [] });
    } finally {
      r.ws.close();
      await client.whenClosed();
    }
  });

  it('the cookie alone authenticates the upgrade', async () => {
    const r = await upgrade(port, {
      origin: ours,
      headers: { Cookie: `pipescope_token_${port}=${token}` },
    });
    expect('ws' in r).toBe(true);
    if ('ws' in r) {
      r.ws.close();
      await r.client.whenClosed();
    }
  });

  it('bad messages: errors as data when an id exists, close 1003 otherwise', async () => {
    const r = await upgrade(port, { target: `/ws?token=${token}`, origin: ours });
    if (!('ws' in r)) throw new Error(`refused with ${r.status}`);
    const client = r.client;
    const unknown = await client.call('process:spawn', { command: 'touch' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'EBADCHANNEL' } });
    const invalid = await client.call('session:start', { server: { command: 42 } });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'EINVAL' } });
    const proto = await client.call('__proto__', {});
    expect(proto).toMatchObject({ ok: false, error: { code: 'EBADCHANNEL' } });
    r.ws.send('{not json');
    expect((await client.whenClosed()).code).toBe(1003);

    const r2 = await upgrade(port, { target: `/ws?token=${token}`, origin: ours });
    if (!('ws' in r2)) throw new Error(`refused with ${r2.status}`);
    const binary = r2.client;
    r2.ws.send(Buffer.from([1, 2, 3]));
    expect((await binary.whenClosed()).code).toBe(1003);
    expect(await sessionCount()).toBe(0);
  });

  it('a message over 16 MiB closes the socket (1009) without being parsed', async () => {
    const r = await upgrade(port, { target: `/ws?token=${token}`, origin: ours });
    if (!('ws' in r)) throw new Error(`refused with ${r.status}`);
    const client = r.client;
    r.ws.send(
      JSON.stringify({
        id: 1,
        channel: 'session:list',
        payload: { pad: 'x'.repeat(17 * 1024 * 1024) },
      }),
    );
    expect((await client.whenClosed(10_000)).code).toBe(1009);
  });
});
