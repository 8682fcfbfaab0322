/**
 * Helpers of the browser-mode suites (web-*.test.ts): a throwaway static root with a secret
 * outside it (and a symlink pointing at it), raw HTTP requests with full control of Host,
 * Origin and the request target, raw WebSocket upgrades, and a small JSON-RPC-ish client for the
 * server's WebSocket protocol that waits on events with bounded timeouts.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import type { startWebServer, WebServer } from '../../dist/electron/web/server.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { Result } from '../../dist/shared/result.js';
import { withTimeout } from './helpers.js';

export const SECRET = 'pipescope-canary-secret-7f3a';

/** <tmp>/root/{index.html, assets/app.js, sub/, leak.txt → ../secret.txt}, <tmp>/secret.txt. */
export function makeStaticDir(): { base: string; root: string; secretFile: string } {
  const base = mkdtempSync(path.join(tmpdir(), 'pipescope-web-'));
  const root = path.join(base, 'root');
  mkdirSync(path.join(root, 'assets'), { recursive: true });
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Pipescope</title>\n');
  writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log("app");\n');
  const secretFile = path.join(base, 'secret.txt');
  writeFileSync(secretFile, `${SECRET}\n`);
  symlinkSync(secretFile, path.join(root, 'leak.txt'));
  return { base, root, secretFile };
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpOptions {
  method?: string;
  /** Sent as is (no normalisation): `/../x` stays `/../x`. */
  target?: string;
  headers?: Record<string, string>;
  /** false: send no Host header at all. */
  setHost?: boolean;
  body?: string;
}

export function http(port: number, opts: HttpOptions = {}): Promise<HttpAnswer> {
  const done = new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: opts.method ?? 'GET',
        path: opts.target ?? '/',
        headers: opts.headers,
        setHost: opts.setHost ?? true,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
  return withTimeout(done, 5000, `HTTP ${opts.method ?? 'GET'} ${opts.target ?? '/'}`);
}

export interface UpgradeOptions {
  target?: string;
  origin?: string;
  headers?: Record<string, string>;
}

/**
 * Attempts a WebSocket upgrade: the open socket with its client, or the HTTP status it was
 * refused with. The client listens before 'open': the server's first event can arrive in the
 * same read as the 101 response.
 */
export function upgrade(
  port: number,
  opts: UpgradeOptions = {},
): Promise<{ ws: WebSocket; client: WsClient } | { status: number; body: string }> {
  const done = new Promise<{ ws: WebSocket; client: WsClient } | { status: number; body: string }>(
    (resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${opts.target ?? '/ws'}`, {
        ...(opts.origin === undefined ? {} : { origin: opts.origin }),
        headers: opts.headers,
      });
      const client = new WsClient(ws);
      ws.once('open', () => resolve({ ws, client }));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.once('error', reject);
    },
  );
  return withTimeout(done, 5000, `upgrade ${opts.target ?? '/ws'}`);
}

/** The server's WebSocket protocol from the client side: calls by id, events collected. */
export class WsClient {
  readonly events: HostEvent[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, (r: Result<unknown>) => void>();
  private readonly waiters = new Set<() => void>();
  closed: { code: number; reason: string } | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as
        | { id: number; result: Result<unknown> }
        | { event: HostEvent };
      if ('id' in msg) {
        this.pending.get(msg.id)?.(msg.result);
        this.pending.delete(msg.id);
      } else this.events.push(msg.event);
      for (const w of [...this.waiters]) w();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of [...this.waiters]) w();
    });
  }

  call(channel: string, payload: unknown, ms = 10_000): Promise<Result<unknown>> {
    const id = this.nextId++;
    const answer = new Promise<Result<unknown>>((resolve) => this.pending.set(id, resolve));
    this.ws.send(JSON.stringify({ id, channel, payload }));
    return withTimeout(answer, ms, `answer to ${channel}`);
  }

  /** Resolves with the first collected event (already here or arriving) that `pick` accepts. */
  waitFor<T>(pick: (e: HostEvent) => T | undefined, ms: number, what: string): Promise<T> {
    let waiter: (() => void) | undefined;
    let seen = 0;
    const found = new Promise<T>((resolve, reject) => {
      waiter = () => {
        for (; seen < this.events.length; seen++) {
          const v = pick(this.events[seen]);
          if (v !== undefined) return resolve(v);
        }
        if (this.closed) reject(new Error(`socket closed (${this.closed.code}) before ${what}`));
      };
      this.waiters.add(waiter);
      waiter();
    });
    return withTimeout(found, ms, what).finally(() => {
      if (waiter) this.waiters.delete(waiter);
    });
  }

  /** Resolves once the socket closed (bounded). */
  whenClosed(ms = 5000): Promise<{ code: number; reason: string }> {
    let waiter: (() => void) | undefined;
    const p = new Promise<{ code: number; reason: string }>((resolve) => {
      waiter = () => {
        if (this.closed) resolve(this.closed);
      };
      this.waiters.add(waiter);
      waiter();
    });
    return withTimeout(p, ms, 'socket close').finally(() => {
      if (waiter) this.waiters.delete(waiter);
    });
  }
}

/** What the server needs of a SessionManager (tests pass fakes to reach corner cases). */
export type WebServerBackend = Parameters<typeof startWebServer>[0]['manager'];

/** An authenticated socket to `s` with our Origin, as the page would open it. */
export async function connect(s: WebServer): Promise<WsClient> {
  const r = await upgrade(s.port, {
    target: `/ws?token=${s.token}`,
    origin: `http://127.0.0.1:${s.port}`,
  });
  if (!('ws' in r)) throw new Error(`upgrade refused with ${r.status}`);
  return r.client;
}
