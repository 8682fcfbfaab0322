/**
 * Counts what the page receives on its WebSockets (the browser-mode HostApi): bytes and
 * messages, total and largest. Attach with `openApp({ beforeNavigate: traffic.attach })` so the
 * socket opened on load is seen from its first frame.
 */
import type { Page } from 'playwright-core';

export interface TrafficCount {
  bytes: number;
  messages: number;
  largest: number;
}

export interface WsTraffic {
  attach(page: Page): void;
  /** Totals since the page loaded. */
  total(): TrafficCount;
  /** Totals since `from` (an earlier `total()`), largest message included. */
  since(from: TrafficCount): TrafficCount;
}

export function recordWsTraffic(): WsTraffic {
  const sizes: number[] = [];
  let bytes = 0;
  const total = (): TrafficCount => ({
    bytes,
    messages: sizes.length,
    largest: sizes.reduce((a, b) => Math.max(a, b), 0),
  });
  return {
    attach(page) {
      page.on('websocket', (ws) => {
        ws.on('framereceived', ({ payload }) => {
          const n = Buffer.byteLength(payload);
          bytes += n;
          sizes.push(n);
        });
      });
    },
    total,
    since(from) {
      const later = sizes.slice(from.messages);
      return {
        bytes: bytes - from.bytes,
        messages: later.length,
        largest: later.reduce((a, b) => Math.max(a, b), 0),
      };
    },
  };
}
