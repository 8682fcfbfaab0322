/**
 * How HostApi calls and events travel between the renderer and the Node side, declared once for
 * both ends of both ways:
 *
 * - Electron: one IPC invoke channel carries every call as `(channel, payload)` and answers with
 *   a Result; one event channel carries HostEvents to the window (electron/preload/preload.ts,
 *   electron/main/ipc-registry.ts).
 * - Browser mode: text frames on one WebSocket at WS_PATH (electron/web/socket-bridge.ts,
 *   renderer/host/browser-host.ts). Client → server `{ id, channel, payload }`; server → client
 *   `{ id, result }` for each call and `{ event }` for HostEvents.
 *
 * Which channels exist and what their payloads are is host-api.ts (HOST_CHANNELS); this module
 * is only the envelope. Pure, without zod: the sandboxed preload bundles it.
 */
import type { HostEvent } from './host-api.js';
import type { Result } from './result.js';

/** The Electron IPC channels (renderer → main: invoke; main → renderer: events). */
export const IPC_CHANNELS = {
  invoke: 'pipescope:invoke',
  event: 'pipescope:event',
} as const;

/** The browser-mode WebSocket's path (its token rides in the query or the cookie). */
export const WS_PATH = '/ws';

/** Longest channel name a WebSocket call may carry. */
export const MAX_CHANNEL_CHARS = 100;

/** A call from the browser: `id` pairs it with its answer. */
export interface WsCall {
  id: number;
  channel: string;
  payload: unknown;
}

/** What the server sends: the answer to a call, or a HostEvent. */
export type WsServerMessage = { id: number; result: Result<unknown> } | { event: HostEvent };

function parseObject(text: string): Record<string, unknown> | null {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return null;
  return msg as Record<string, unknown>;
}

/**
 * A client frame as the server reads it: the call, an `error` to answer it with (a usable id
 * but a bad channel), or null when it cannot be answered at all (no usable id).
 */
export function parseWsCall(text: string): WsCall | { id: number; error: string } | null {
  const msg = parseObject(text);
  if (!msg) return null;
  const { id, channel, payload } = msg;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return null;
  if (typeof channel !== 'string' || channel.length > MAX_CHANNEL_CHARS) {
    return { id, error: `channel must be a string of at most ${MAX_CHANNEL_CHARS} characters` };
  }
  return { id, channel, payload };
}

/** A server frame as the browser reads it; null for anything it does not know. */
export function parseWsServerMessage(text: string): WsServerMessage | null {
  const m = parseObject(text);
  if (!m) return null;
  if (typeof m.id === 'number') {
    const r = m.result as Record<string, unknown> | null;
    if (typeof r === 'object' && r !== null && typeof r.ok === 'boolean') {
      return { id: m.id, result: r as Result<unknown> };
    }
    return null;
  }
  const e = m.event as Record<string, unknown> | null;
  if (
    typeof e === 'object' &&
    e !== null &&
    (e.type === 'snapshot' || e.type === 'sessions' || e.type === 'notice')
  ) {
    return { event: e as HostEvent };
  }
  return null;
}
