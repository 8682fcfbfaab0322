/**
 * Demo `ignores-cancel`: the slow producer with cancellation thrown away. Ignoring the
 * AbortSignal alone is not enough to show it on the wire — the SDK would still abort the
 * request and silently drop its progress and its response — so this server replaces the SDK's
 * notifications/cancelled handler with one that only logs. The loop keeps sending progress and
 * the response goes out late, as it would from a server that never wired cancellation up.
 */

import { CancelledNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { registerProduce } from './lib/producer.js';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('ignores-cancel');
registerProduce(server, { honourCancel: false });
registerEcho(server);

server.mcp.server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
  const { requestId, reason } = notification.params;
  server.log(`ignoring cancellation of request ${String(requestId)} (${reason ?? 'no reason'})`);
});

runMain(server.id, () => startDemoServer(server));
