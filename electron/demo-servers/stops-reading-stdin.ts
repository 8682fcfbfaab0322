/**
 * Demo `stops-reading-stdin`: after the handshake (by default once tools/list arrives) the
 * server pauses stdin for good but stays alive. Requests then pile up in the 64 KiB pipe; a
 * large one fills it and the host's write waits for a 'drain' that never comes.
 */

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('stops-reading-stdin');
const stopAfter = server.knobs.str('stop-after');
if (stopAfter !== 'tools/list' && stopAfter !== 'initialized') {
  server.log(`--stop-after must be tools/list or initialized, got ${stopAfter}`);
  process.exit(2);
}
const stopMethod = stopAfter === 'initialized' ? 'notifications/initialized' : 'tools/list';
registerEcho(server);

// Stays alive with stdin paused (a paused stdin keeps nothing scheduled by itself).
setInterval(() => {}, 60_000);

runMain(server.id, async () => {
  const transport = new StdioServerTransport();
  await startDemoServer(server, transport);
  // Watch incoming messages without changing them: when the chosen one arrives, it is still
  // handled, but nothing after it is ever read.
  const handle = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    handle?.(message);
    if ('method' in message && message.method === stopMethod) {
      process.stdin.pause();
      server.log(`stopped reading stdin after ${stopMethod}`);
    }
  };
});
