/**
 * The renderer's browser host (renderer/host/browser-host.ts) against the real browser-mode
 * server, with `ws` standing in for the DOM WebSocket: calls answered, events delivered, calls
 * pending when the socket drops resolve with an error Result, and the host reconnects by itself.
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { startWebServer, type WebServer } from '../../dist/electron/web/server.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { Result } from '../../dist/shared/result.js';
import { createBrowserHost, type SocketConnector } from '../../renderer/host/browser-host.js';
import { waitFor, withTimeout } from './helpers.js';
import { makeStaticDir, type WebServerBackend } from './web-helpers.js';

const dir = makeStaticDir();
const servers: WebServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir.base, { recursive: true, force: true }));

async function serve(manager: WebServerBackend, token?: string, port = 0): Promise<WebServer> {
  const s = await startWebServer({ port, staticDir: dir.root, manager, token });
  servers.push(s);
  return s;
}

/** The browser host in Node: `ws` stands in for the DOM WebSocket (with our Origin, as a page). */
function wsConnector(origin: string): SocketConnector {
  return (url, handlers) => {
    const ws = new WebSocket(url, { origin });
    ws.on('open', () => handlers.open());
    ws.on('message', (data, isBinary) => {
      if (!isBinary) handlers.message(data.toString());
    });
    ws.on('close', () => handlers.close());
    ws.on('error', () => {});
    return { send: (d) => ws.send(d), close: () => ws.close() };
  };
}

describe('renderer/host browser host against the server', () => {
  it('calls, events, pending calls fail on disconnect, and it reconnects', async () => {
    // A backend whose session:recover never answers: a call is in flight when the socket drops.
    const manager = new SessionManager();
    const backend: WebServerBackend = {
      dispatch: (call) =>
        call.channel === 'session:recover'
          ? new Promise<Result<unknown>>(() => {})
          : manager.dispatch(call),
      subscribe: (l) => manager.subscribe(l),
      stopAll: async () => {},
    };
    const first = await serve(backend);
    const origin = `http://127.0.0.1:${first.port}`;
    const host = createBrowserHost({
      url: `ws://127.0.0.1:${first.port}/ws?token=${first.token}`,
      connect: wsConnector(origin),
      backoffMs: { initial: 20, max: 200 },
    });
    try {
      const events: HostEvent[] = [];
      const unsubscribe = host.subscribe((e) => events.push(e));
      expect(host.kind).toBe('browser');
      // Sent before the socket opened: queued, then answered.
      expect(await withTimeout(host.invoke('session:list', {}), 5000, 'list')).toEqual({
        ok: true,
        value: [],
      });
      await waitFor(() => events.some((e) => e.type === 'sessions'), 2000, 'a sessions event');
      const bad = await host.invoke('session:stop', { sessionId: 'nope' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'ENOSESSION' } });

      const stuck = host.invoke('session:recover', { sessionId: 'x' });
      await first.close();
      expect(await withTimeout(stuck, 5000, 'the pending call')).toMatchObject({
        ok: false,
        error: { code: 'EDISCONNECTED' },
      });
      expect(host.connected()).toBe(false);

      // Same port and token again (as after a restart): the host reconnects by itself.
      await serve(backend, first.token, first.port);
      await waitFor(() => host.connected(), 5000, 'the browser host to reconnect');
      expect(await withTimeout(host.invoke('demo:list', {}), 5000, 'demo:list')).toMatchObject({
        ok: true,
      });
      unsubscribe();
    } finally {
      host.dispose();
      await manager.stopAll();
    }
    expect(await host.invoke('session:list', {})).toMatchObject({
      ok: false,
      error: { code: 'EDISCONNECTED' },
    });
  });
});
