/**
 * Demo `crash-mid-response`: `crash` writes the first half of its own response line to stdout
 * and the process exits (code 3 by default) before the rest — the bytes on the pipe can never
 * become a message.
 */

import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('crash-mid-response');
const textBytes = server.knobs.int('bytes');
const exitCode = server.knobs.int('exit-code');

server.mcp.registerTool(
  'crash',
  {
    description: 'Starts writing its response, then the process exits mid-line.',
    inputSchema: {},
  },
  async (_args, extra) => {
    const response = JSON.stringify({
      jsonrpc: '2.0',
      id: extra.requestId,
      result: { content: [{ type: 'text', text: 'x'.repeat(textBytes) }] },
    });
    const half = response.slice(0, Math.floor(response.length / 2));
    server.log(`writing ${half.length} of ${response.length} bytes, then exiting ${exitCode}`);
    // Exit only once the half is flushed, so the partial frame really reaches the pipe.
    process.stdout.write(half, () => process.exit(exitCode));
    return new Promise<never>(() => {});
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
