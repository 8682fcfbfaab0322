/**
 * Browser mode cannot be starved by connections that never say anything. A local process
 * without the token could open connections until the file-descriptor limit and leave them
 * silent, and `GET /` then hung for everyone. So connections that have not yet sent a request
 * are bounded: at most MAX_SILENT at once (a newer one makes the oldest go), none kept past
 * SILENT_MS, and a request's headers must arrive within HEADERS_TIMEOUT_MS. Connections
 * serving a request or a WebSocket are not counted (the token gates what they can do).
 *
 * Owns: the set of silent connections and its sweep timer. Fed by: the HTTP server's
 * 'connection', 'request' and 'upgrade' events. Released with the server (`dispose`).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { type Disposable, DisposableStore, toDisposable } from '../../shared/lifecycle.js';

/** Silent connections kept at once. */
export const MAX_SILENT = 64;
/** How long a connection may stay silent. */
export const SILENT_MS = 5000;
const HEADERS_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 30_000;
const SWEEP_MS = 1000;

export interface GuardStats {
  /** Silent connections dropped so far (crowded out, or silent too long). */
  dropped: number;
}

export function guardConnections(server: Server, stats: GuardStats): Disposable {
  const store = new DisposableStore();
  /** Silent connections, oldest first, with when they came. */
  const silent = new Map<Socket, number>();
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  const drop = (socket: Socket): void => {
    silent.delete(socket);
    stats.dropped += 1;
    socket.destroy();
  };
  const onConnection = (socket: Socket): void => {
    silent.set(socket, Date.now());
    socket.once('close', () => silent.delete(socket));
    if (silent.size > MAX_SILENT) drop(silent.keys().next().value as Socket);
  };
  const spoke = (req: { socket: Socket }): void => {
    silent.delete(req.socket);
  };
  server.on('connection', onConnection);
  server.on('request', spoke);
  server.on('upgrade', spoke);
  store.add(
    toDisposable(() => {
      server.off('connection', onConnection);
      server.off('request', spoke);
      server.off('upgrade', spoke);
    }),
  );
  const sweep = setInterval(() => {
    const tooOld = Date.now() - SILENT_MS;
    for (const [socket, at] of silent) {
      if (at > tooOld) break; // in arrival order: the rest are younger
      drop(socket);
    }
  }, SWEEP_MS);
  sweep.unref();
  store.add(toDisposable(() => clearInterval(sweep)));
  return store;
}
