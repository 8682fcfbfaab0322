/**
 * Demo `stdout-pollution`: the most common bug of real stdio servers — a banner printed at
 * start-up and a stray console.log in a tool, both on stdout, the protocol channel.
 */

import * as z from 'zod';
import { createDemoServer, runMain, startDemoServer, textResult } from './lib/server.js';

const server = createDemoServer('stdout-pollution');
const strayLines = server.knobs.int('lines');

server.mcp.registerTool(
  'echo',
  {
    description: 'Returns its text argument (and, by mistake, logs to stdout).',
    inputSchema: { text: z.string().describe('Text to echo back') },
  },
  async ({ text }) => {
    // The bug on purpose: console.log writes to stdout, between protocol messages.
    for (let i = 0; i < strayLines; i++) console.log(`tool called: echo ${JSON.stringify(text)}`);
    return textResult(text);
  },
);

runMain(server.id, async () => {
  if (server.knobs.bool('banner')) {
    console.log('=== Acme MCP server v1.0 — starting up, have a nice day ===');
  }
  await startDemoServer(server);
});
