/**
 * One authenticated browser-mode WebSocket ↔ the SessionManager (HostApi over JSON frames).
 *
 * Protocol (text frames only): shared/bridge-protocol.ts, whose parser reads every client frame. Owns: the socket's manager
 * subscription (taken on connect, released on close), its in-flight calls, and its snapshot
 * backlog. Fed by: server.ts after the upgrade passed the gate. Listens: the browser host in
 * renderer/host/browser-host.ts.
 *
 * Backpressure: call results and session lists are always sent. When the socket's buffer is
 * over HIGH_WATER, snapshots are held back and merged per session (snapshot-merge.ts) instead of
 * queued; the backlog is sent once a write completes and the buffer is under LOW_WATER. The
 * SessionManager already caps snapshots at 20 Hz per session, so the backlog stays small.
 */
import type { WebSocket } from 'ws';
import { parseWsCall } from '../../shared/bridge-protocol.js';
import { type HostCall, type HostEvent, parseHostCall } from '../../shared/host-api.js';
import { err, type Result } from '../../shared/result.js';
import type { SessionSnapshot } from '../../shared/session-info.js';
import { mergeSnapshots } from './snapshot-merge.js';

/** What the bridge needs of the SessionManager (the Node side of HostApi). */
export interface HostBackend {
  /** Runs a call validated here (the bridge is where it entered the Node side). */
  dispatch(call: HostCall): Promise<Result<unknown>>;
  subscribe(listener: (event: HostEvent) => void): () => void;
  stopAll(): Promise<void>;
}

export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const HIGH_WATER = 8 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;
const MAX_IN_FLIGHT = 256;

/** WebSocket close codes (RFC 6455 §7.4.1). */
const UNSUPPORTED_DATA = 1003;

export interface BridgeStats {
  /** Snapshots not sent as such because the socket was backed up (merged into a later one). */
  snapshotsCoalesced: number;
}

export function attachSocket(ws: WebSocket, backend: HostBackend, stats: BridgeStats): void {
  const backlog = new Map<string, SessionSnapshot>();
  let inFlight = 0;
  let closed = false;

  const flushBacklog = (): void => {
    if (closed || backlog.size === 0 || ws.bufferedAmount > LOW_WATER) return;
    const held = [...backlog.values()];
    backlog.clear();
    for (const snapshot of held) send({ event: { type: 'snapshot', snapshot } });
  };

  function send(message: unknown): boolean {
    if (closed || ws.readyState !== ws.OPEN) return true;
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch {
      return false; // not serializable (a BigInt, a cycle): the caller answers with an error
    }
    // The write callback is our 'drain': it runs once this frame left the buffer.
    ws.send(text, () => flushBacklog());
    return true;
  }

  const onEvent = (event: HostEvent): void => {
    if (event.type !== 'snapshot') {
      send({ event });
      return;
    }
    const id = event.snapshot.sessionId;
    const held = backlog.get(id);
    if (held || ws.bufferedAmount > HIGH_WATER) {
      stats.snapshotsCoalesced += 1;
      backlog.set(id, held ? mergeSnapshots(held, event.snapshot) : event.snapshot);
      return;
    }
    send({ event });
  };

  const unsubscribe = backend.subscribe(onEvent);

  ws.on('message', (data, isBinary) => {
    // Closing (server shutdown in progress): a late call must not start what stopAll missed.
    if (ws.readyState !== ws.OPEN) return;
    if (isBinary) return ws.close(UNSUPPORTED_DATA, 'text frames only');
    const call = parseWsCall(data.toString());
    if (!call) return ws.close(UNSUPPORTED_DATA, 'bad message');
    if ('error' in call) {
      send({ id: call.id, result: err('EBADMSG', call.error) });
      return;
    }
    if (inFlight >= MAX_IN_FLIGHT) {
      send({ id: call.id, result: err('EBUSY', `at most ${MAX_IN_FLIGHT} calls in flight`) });
      return;
    }
    const hostCall = parseHostCall(call.channel, call.payload);
    if (!hostCall.ok) {
      send({ id: call.id, result: hostCall });
      return;
    }
    inFlight += 1;
    void backend
      .dispatch(hostCall.value)
      .catch((e: unknown) => err('EINTERNAL', e instanceof Error ? e.message : String(e)))
      .then((result) => {
        inFlight -= 1;
        if (!send({ id: call.id, result })) {
          send({
            id: call.id,
            result: err('EINTERNAL', `${call.channel}: result not serializable`),
          });
        }
      });
  });

  ws.on('close', () => {
    closed = true;
    backlog.clear();
    unsubscribe();
  });
  // Socket errors end in 'close'; without a listener they would crash the process.
  ws.on('error', () => {});
}
