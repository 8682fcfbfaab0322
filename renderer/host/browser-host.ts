/**
 * HostApi in browser mode: JSON frames over the WebSocket of `pipescope web`
 * (electron/web/socket-bridge.ts), in the envelope of shared/bridge-protocol.ts.
 *
 * Owns: the socket, the table of calls waiting for an answer, the listeners, and reconnection
 * with backoff. A call never hangs on a dead socket: when the socket closes, every pending call
 * resolves with an `EDISCONNECTED` error Result. Fed by: the server. Listens: the renderer
 * through getHost().
 *
 * The page URL carries the launch token (`?token=`); the socket sends it again in its own
 * query (the server also accepts its HttpOnly cookie). Browser globals are reached through
 * `globalThis` with a small structural type so this file also runs under Node in the
 * integration tests with `ws` behind `connect`.
 */

import { parseWsServerMessage, WS_PATH } from '../../shared/bridge-protocol.js';
import type {
  ChannelRequest,
  ChannelResponses,
  HostApi,
  HostChannel,
  HostEvent,
} from '../../shared/host-api.js';
import { err, type Result } from '../../shared/result.js';

/** What the host needs of a socket; `connect` builds one and reports through `handlers`. */
export interface SocketHandlers {
  open(): void;
  message(data: string): void;
  close(): void;
}
export interface HostSocket {
  send(data: string): void;
  close(): void;
}
export type SocketConnector = (url: string, handlers: SocketHandlers) => HostSocket;

export interface BrowserHostOptions {
  /** ws:// URL of the server; default: this page's host, `/ws`, with the page's token. */
  url?: string;
  connect?: SocketConnector;
  /** Reconnect delays: start, doubling up to max (each with jitter). */
  backoffMs?: { initial: number; max: number };
}

export interface BrowserHost extends HostApi {
  readonly kind: 'browser';
  /** Whether the socket is open right now. */
  connected(): boolean;
  /** Closes the socket for good; pending calls resolve with an error Result. */
  dispose(): void;
}

interface PageLocation {
  protocol: string;
  host: string;
  search: string;
}
interface DomSocket {
  readonly readyState: number;
  onopen: (() => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
  onerror: (() => void) | null;
  send(data: string): void;
  close(): void;
}
// Double cast on purpose: the browser globals, typed structurally (see header).
interface PageHistory {
  replaceState(data: unknown, unused: string, url: string): void;
}
const page = globalThis as unknown as {
  location?: PageLocation & { pathname: string; hash: string };
  history?: PageHistory;
  WebSocket?: new (url: string) => DomSocket;
};

/**
 * The page's address without `token=` (browser history, bookmarks and screenshots then never
 * hold it). The first load has already set the HttpOnly cookie the server takes after it, for
 * the page, its assets and the WebSocket; a reload works with the cookie alone.
 */
export function withoutToken(search: string): string {
  const params = new URLSearchParams(search);
  if (!params.has('token')) return search;
  params.delete('token');
  const rest = params.toString();
  return rest ? `?${rest}` : '';
}

function forgetPageToken(): void {
  const { location, history } = page;
  if (!location || !history) return;
  const search = withoutToken(location.search);
  if (search !== location.search)
    history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
}

/** ws(s)://<this page's host>/ws?token=<the page's token>. */
export function defaultSocketUrl(location: PageLocation | undefined = page.location): string {
  if (!location) throw new Error('browser host: no page location');
  const token = new URLSearchParams(location.search).get('token');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${scheme}://${location.host}${WS_PATH}${query}`;
}

const domConnector: SocketConnector = (url, handlers) => {
  const Socket = page.WebSocket;
  if (!Socket) throw new Error('browser host: no WebSocket in this environment');
  const ws = new Socket(url);
  ws.onopen = () => handlers.open();
  ws.onmessage = (event) => {
    if (typeof event.data === 'string') handlers.message(event.data);
  };
  ws.onclose = () => handlers.close();
  ws.onerror = () => {}; // always followed by close
  return { send: (data) => ws.send(data), close: () => ws.close() };
};

export function createBrowserHost(options: BrowserHostOptions = {}): BrowserHost {
  const url = options.url ?? defaultSocketUrl();
  if (options.url === undefined) forgetPageToken();
  const connect = options.connect ?? domConnector;
  const backoff = options.backoffMs ?? { initial: 250, max: 5000 };
  const listeners = new Set<(event: HostEvent) => void>();
  const pending = new Map<number, (result: Result<unknown>) => void>();
  let queue: string[] = [];
  let socket: HostSocket | null = null;
  let open = false;
  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;
  let nextId = 1;

  const emit = (event: HostEvent): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // one broken listener must not starve the others
      }
    }
  };

  const failPending = (why: string): void => {
    const waiting = [...pending.values()];
    pending.clear();
    queue = [];
    for (const resolve of waiting) resolve(err('EDISCONNECTED', why));
  };

  const handlers: SocketHandlers = {
    open() {
      open = true;
      attempt = 0;
      const waiting = queue;
      queue = [];
      for (const text of waiting) socket?.send(text);
      emit({ type: 'connection', state: 'connected' });
    },
    message(data) {
      const msg = parseWsServerMessage(data);
      if (!msg) return;
      if ('id' in msg) {
        const resolve = pending.get(msg.id);
        pending.delete(msg.id);
        resolve?.(msg.result);
        return;
      }
      emit(msg.event);
    },
    close() {
      open = false;
      socket = null;
      failPending('the connection to pipescope closed');
      emit({ type: 'connection', state: 'disconnected' });
      if (disposed) return;
      const delay = Math.min(backoff.max, backoff.initial * 2 ** attempt);
      attempt += 1;
      retry = setTimeout(start, delay * (0.5 + Math.random() / 2));
    },
  };

  function start(): void {
    retry = null;
    if (disposed || socket) return;
    try {
      socket = connect(url, handlers);
    } catch {
      socket = null;
      handlers.close();
    }
  }

  start();

  return {
    kind: 'browser',
    connected: () => open,
    invoke<C extends HostChannel>(
      channel: C,
      request: ChannelRequest<C>,
    ): Promise<Result<ChannelResponses[C]>> {
      if (disposed) return Promise.resolve(err('EDISCONNECTED', 'browser host disposed'));
      const id = nextId++;
      let text: string;
      try {
        text = JSON.stringify({ id, channel, payload: request });
      } catch (e) {
        return Promise.resolve(err('EINVAL', `${channel}: ${(e as Error).message}`));
      }
      const answer = new Promise<Result<unknown>>((resolve) => pending.set(id, resolve));
      if (open && socket) socket.send(text);
      else {
        queue.push(text);
        // A call while waiting out the backoff: try now rather than make the user wait.
        if (!socket) {
          if (retry) clearTimeout(retry);
          start();
        }
      }
      // The server answers each channel with its ChannelResponses type (SessionManager).
      return answer as Promise<Result<ChannelResponses[C]>>;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    dispose() {
      disposed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const s = socket;
      socket = null;
      open = false;
      s?.close();
      failPending('browser host disposed');
    },
  };
}
