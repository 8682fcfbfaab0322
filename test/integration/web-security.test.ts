/**
 * Browser mode under attack (HARDENING.md 23-26 and "Hostile inputs: Browser mode"): binding,
 * the per-launch token on every request and upgrade, Host / Origin checks (DNS rebinding,
 * cross-site pages, 0.0.0.0), verbs, path traversal and symlinks, and the proof that a
 * cross-origin `text/plain` form POST cannot start a process. Raw node:http requests against
 * the built server with a real SessionManager behind it (the upgrade: web-socket.test.ts).
 */
import { existsSync, rmSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { startWebServer, type WebServer } from '../../dist/electron/web/server.js';
import { childrenOf } from '../fixtures/processes.js';

import { http, makeStaticDir, SECRET } from './web-helpers.js';

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

const q = (t = token): string => `/?token=${t}`;

async function sessionCount(): Promise<number> {
  const r = await manager.handle('session:list', {});
  expect(r.ok).toBe(true);
  return r.ok ? (r.value as unknown[]).length : -1;
}

describe('binding and token', () => {
  it('binds 127.0.0.1 only, prints a 43-character base64url token', async () => {
    expect(server.address().address).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (other) {
      // Nothing listens on the machine's other interfaces.
      const refused = await fetch(`http://${other.address}:${port}/`).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(Error);
    }
  });

  it('a second server gets another token; a short caller token is refused', async () => {
    const second = await startWebServer({ port: 0, staticDir: dir.root, manager });
    try {
      expect(second.token).not.toBe(token);
      expect(second.port).not.toBe(port);
    } finally {
      await second.close();
    }
    await expect(
      startWebServer({ port: 0, staticDir: dir.root, manager, token: 'short' }),
    ).rejects.toThrow(/token/);
  });

  it('refuses a non-loopback interface unless allowed, and warns when it is', async () => {
    await expect(
      startWebServer({ port: 0, host: '0.0.0.0', staticDir: dir.root, manager }),
    ).rejects.toThrow(/loopback/);
    const warnings: string[] = [];
    const open = await startWebServer({
      port: 0,
      host: '0.0.0.0',
      allowNonLoopback: true,
      staticDir: dir.root,
      manager: {
        dispatch: manager.dispatch.bind(manager),
        subscribe: () => () => {},
        stopAll: async () => {},
      },
      warn: (l) => warnings.push(l),
    });
    try {
      expect(warnings.join('\n')).toMatch(/WARNING.*0\.0\.0\.0/);
      const r = await http(open.port, {
        target: `/?token=${open.token}`,
        headers: { Host: `0.0.0.0:${open.port}` },
      });
      expect(r.status).toBe(403);
    } finally {
      await open.close();
    }
  });

  it('missing, wrong and short tokens get 401 with one line and no detail', async () => {
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const target of [
      '/',
      '/index.html',
      q(wrong),
      q(token.slice(0, 20)),
      q(`${token}x`),
      '/?token=',
    ]) {
      const r = await http(port, { target });
      expect(r.status, target).toBe(401);
      expect(r.body).toBe('token required\n');
      expect(r.headers['set-cookie']).toBeUndefined();
    }
    const bearerWrong = await http(port, { headers: { Authorization: `Bearer ${wrong}` } });
    expect(bearerWrong.status).toBe(401);
  });

  it('the right token gets 200, an HttpOnly SameSite=Strict cookie, and the security headers', async () => {
    const r = await http(port, { target: q() });
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>Pipescope</title>');
    const cookie = r.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(new RegExp(`^pipescope_token_${port}=${token};`));
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    expect(r.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(r.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('the cookie alone, or a Bearer header, is enough; another port’s cookie is not', async () => {
    const cookie = `pipescope_token_${port}=${token}`;
    const page = await http(port, { headers: { Cookie: `other=1; ${cookie}` } });
    expect(page.status).toBe(200);
    const asset = await http(port, { target: '/assets/app.js', headers: { Cookie: cookie } });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['set-cookie']).toBeUndefined();
    const bearer = await http(port, { headers: { Authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    const foreign = await http(port, {
      headers: { Cookie: `pipescope_token_${port + 1}=${token}` },
    });
    expect(foreign.status).toBe(401);
  });

  it('HEAD works and sends no body', async () => {
    const r = await http(port, { method: 'HEAD', target: q() });
    expect(r.status).toBe(200);
    expect(Number(r.headers['content-length'])).toBeGreaterThan(0);
    expect(r.body).toBe('');
  });
});

describe('Host and Origin', () => {
  it('a foreign or missing Host is 403 even with the right token (DNS rebinding, 0.0.0.0)', async () => {
    for (const host of [
      'evil.test',
      `evil.test:${port}`,
      `0.0.0.0:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `127.0.0.2:${port}`,
    ]) {
      const r = await http(port, { target: q(), headers: { Host: host } });
      expect(r.status, host).toBe(403);
      expect(r.headers['set-cookie']).toBeUndefined();
    }
    // No Host at all: Node refuses HTTP/1.1 without Host (400) before we see it.
    expect([400, 403]).toContain((await http(port, { target: q(), setHost: false })).status);
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await http(port, { target: q(), headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('Origin must be exactly ours: null, another host, another port, https → 403', async () => {
    for (const origin of [
      'http://evil.test',
      'null',
      `http://127.0.0.1:${port + 1}`,
      `https://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      '',
    ]) {
      const r = await http(port, { target: q(), headers: { Origin: origin } });
      expect(r.status, origin).toBe(403);
    }
    expect((await http(port, { target: q(), headers: { Origin: ours } })).status).toBe(200);
    const viaLocalhost = await http(port, {
      target: q(),
      headers: { Host: `localhost:${port}`, Origin: `http://localhost:${port}` },
    });
    expect(viaLocalhost.status).toBe(200);
  });
});

describe('nothing over HTTP can start a process', () => {
  const marker = path.join(dir.base, 'pwned');
  const form = JSON.stringify({
    id: 1,
    channel: 'session:start',
    payload: { server: { command: 'touch', args: [marker] } },
  });

  it('a cross-origin text/plain form POST gets 403/401/405 and starts nothing', async () => {
    const attempts: { headers: Record<string, string>; target?: string; expect: number }[] = [
      { headers: { Origin: 'http://evil.test' }, expect: 403 },
      { headers: { Origin: 'null' }, expect: 403 },
      { headers: {}, expect: 401 },
      { headers: {}, target: '/ws', expect: 401 },
      // Even holding the token, no verb but GET/HEAD exists.
      { headers: {}, target: `/ws?token=${token}`, expect: 405 },
      { headers: { Origin: ours }, target: q(), expect: 405 },
    ];
    for (const a of attempts) {
      const r = await http(port, {
        method: 'POST',
        target: a.target ?? '/',
        headers: { 'Content-Type': 'text/plain', ...a.headers },
        body: form,
      });
      expect(r.status, JSON.stringify(a)).toBe(a.expect);
      expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const r = await http(port, { method, target: q(), body: form });
      expect(r.status, method).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
    }
    expect(await sessionCount()).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(childrenOf()).toEqual([]);
  });

  it('a GET carrying a start request does nothing either', async () => {
    const r = await http(port, {
      target: `/ws?token=${token}&channel=session:start&payload=${encodeURIComponent(form)}`,
    });
    expect(r.status).toBe(404);
    expect(await sessionCount()).toBe(0);
  });
});

describe('static files', () => {
  it('path traversal, encoded dots, backslashes and symlinks out of the root → 404/400', async () => {
    const targets = [
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/..%2f..%2f..%2fetc%2fpasswd',
      '/assets/..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/leak.txt',
      '/sub',
      '/sub/',
      '/index.html%00.js',
      '/%E0%A4%A',
      '/nope.html',
    ];
    for (const target of targets) {
      const sep = target.includes('?') ? '&' : '?';
      const r = await http(port, { target: `${target}${sep}token=${token}` });
      expect([400, 403, 404], target).toContain(r.status);
      expect(r.body).not.toContain(SECRET);
      expect(r.body).not.toContain('root:');
    }
    const absolute = await http(port, { target: `http://evil.test/?token=${token}` });
    expect(absolute.status).toBe(400);
  });
});
