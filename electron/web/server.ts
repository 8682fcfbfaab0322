/**
 * Browser mode's listener: plain node:http for the built renderer, `ws` (noServer) for HostApi.
 *
 * Owns: the HTTP server, the WebSocket server and every connected socket, the per-launch token.
 * Every request and upgrade passes Host → Origin → token (auth.ts) before anything else; the
 * only HTTP verbs are GET and HEAD on static files, so nothing reachable over HTTP can start a
 * process — that happens only through the authenticated WebSocket (HARDENING.md 23-26, the
 * CVE-2025-49596 lesson). Fed by: run.ts (the `pipescope web` command) and tests. Listens: the
 * SessionManager it is given (socket-bridge.ts); `close()` stops every session through it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { WS_PATH } from '../../shared/bridge-protocol.js';
import {
  allowedHosts,
  assertUsableToken,
  checkRequest,
  generateToken,
  isLoopbackBind,
  tokenCookie,
} from './auth.js';
import { type GuardStats, guardConnections } from './connection-guard.js';
import {
  attachSocket,
  type BridgeStats,
  type HostBackend,
  MAX_MESSAGE_BYTES,
} from './socket-bridge.js';
import { openStaticRoot, SECURITY_HEADERS, sendText, serveStatic } from './static-files.js';

export interface WebServerOptions {
  /** 0 (the default) picks any free port. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. Anything but loopback needs `allowNonLoopback`. */
  host?: string;
  allowNonLoopback?: boolean;
  /** The built renderer (dist/renderer). */
  staticDir: string;
  /** The SessionManager (or anything with its dispatch / subscribe / stopAll). */
  manager: HostBackend;
  /** Fixed token (tests); by default 32 random bytes, base64url. */
  token?: string;
  /** Where warnings go (default: stderr). */
  warn?: (line: string) => void;
}

export interface WebServer {
  url: string;
  port: number;
  token: string;
  /** The bound address (127.0.0.1 unless told otherwise). */
  address(): AddressInfo;
  stats(): { sockets: number; snapshotsCoalesced: number; silentDropped: number };
  close(): Promise<void>;
}

const SOCKET_CLOSE_GRACE_MS = 1000;
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** Answers an upgrade we refuse with a plain HTTP status and ends the socket. */
function refuseUpgrade(socket: Duplex, status: number, line: string): void {
  const body = `${line}\n`;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** Parses an origin-form request target; an absolute-form or garbage target gets null. */
function requestUrl(req: IncomingMessage): URL | null {
  const target = req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) return null;
  try {
    return new URL(target, 'http://pipescope.invalid');
  } catch {
    return null;
  }
}

/** The host part of the URL we print: loopback unless a specific other address was bound. */
function urlHostFor(bindHost: string): string {
  if (bindHost === '::1') return '[::1]';
  if (isLoopbackBind(bindHost) || bindHost === '0.0.0.0' || bindHost === '::') return '127.0.0.1';
  return bindHost.includes(':') ? `[${bindHost}]` : bindHost;
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const requested = opts.host ?? '127.0.0.1';
  const bindHost = requested.toLowerCase() === 'localhost' ? '127.0.0.1' : requested;
  if (!isLoopbackBind(bindHost)) {
    if (!opts.allowNonLoopback) {
      throw new Error(`refusing to bind ${bindHost}: browser mode binds loopback only`);
    }
    warn(
      `pipescope: WARNING: browser mode is listening on ${bindHost}, reachable from other ` +
        'machines; anyone with the token can start processes as you',
    );
  }
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`bad port ${port}`);
  const token = opts.token ?? generateToken();
  assertUsableToken(token);
  const tokenBytes = Buffer.from(token, 'utf8');
  const root = await openStaticRoot(opts.staticDir);

  const stats: BridgeStats = { snapshotsCoalesced: 0 };
  const clients = new Set<WebSocket>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
  });
  let closing = false;
  let gate: { hosts: Set<string>; token: Buffer; port: number } | null = null;

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (closing || !gate) return sendText(res, 503, 'shutting down', { Connection: 'close' });
    const url = requestUrl(req);
    if (!url) return sendText(res, 400, 'bad request target');
    const checked = checkRequest(req, url, { ...gate, requireOrigin: false });
    if (!checked.ok) return sendText(res, checked.status, checked.reason);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendText(res, 405, 'method not allowed', { Allow: 'GET, HEAD', Connection: 'close' });
    }
    // The page's own asset requests and its WebSocket then carry the token without the query.
    if (checked.source === 'query') res.setHeader('Set-Cookie', tokenCookie(gate.port, token));
    await serveStatic(root, url.pathname, res);
  };

  /** Why an upgrade is refused (Origin is mandatory here), or null to accept it. */
  const upgradeRefusal = (req: IncomingMessage): { status: number; line: string } | null => {
    if (closing || !gate) return { status: 503, line: 'shutting down' };
    const url = requestUrl(req);
    if (!url) return { status: 400, line: 'bad request target' };
    const checked = checkRequest(req, url, { ...gate, requireOrigin: true });
    if (!checked.ok) return { status: checked.status, line: checked.reason };
    return url.pathname === WS_PATH ? null : { status: 404, line: 'not found' };
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const refused = upgradeRefusal(req);
    if (refused) {
      refuseUpgrade(socket, refused.status, refused.line);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (closing) {
        ws.terminate();
        return;
      }
      clients.add(ws);
      ws.once('close', () => clients.delete(ws));
      attachSocket(ws, opts.manager, stats);
    });
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch(() => {
      if (!res.headersSent) sendText(res, 500, 'internal error');
      else res.destroy();
    });
  });
  server.on('upgrade', onUpgrade);
  server.on('clientError', (_e, socket) => socket.destroy());
  const guardStats: GuardStats = { dropped: 0 };
  const guard = guardConnections(server, guardStats);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a burst of connections (silent ones included) must not make the
    // kernel drop a browser's SYN (a retry costs a second).
    server.listen({ port, host: bindHost, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // listen() on a host and port always yields an AddressInfo (never a pipe name).
  const bound = { ...(server.address() as AddressInfo) };
  const actualPort = bound.port;
  gate = { hosts: allowedHosts(actualPort, bindHost), token: tokenBytes, port: actualPort };

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const socketsClosed = [...clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => ws.terminate(), SOCKET_CLOSE_GRACE_MS);
            ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            ws.close(1001, 'server shutting down');
          }),
      );
      try {
        await opts.manager.stopAll();
      } finally {
        await Promise.all(socketsClosed);
        guard.dispose();
        server.closeAllConnections();
        wss.close();
        await serverClosed;
      }
    })();
    return closed;
  };

  return {
    url: `http://${urlHostFor(bindHost)}:${actualPort}/?token=${token}`,
    port: actualPort,
    token,
    address: () => bound,
    stats: () => ({
      sockets: clients.size,
      snapshotsCoalesced: stats.snapshotsCoalesced,
      silentDropped: guardStats.dropped,
    }),
    close,
  };
}
