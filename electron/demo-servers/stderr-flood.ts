/**
 * Demo `stderr-flood`: 10 MiB of log lines on stderr at start-up while stdout stays idle, and
 * a `flood` tool to repeat it. The writes await 'drain', so a host that does not read stderr
 * leaves this server parked in its logging — the symptom the demo is about.
 */

import * as z from 'zod';
import {
  createDemoServer,
  registerEcho,
  runMain,
  startDemoServer,
  textResult,
} from './lib/server.js';
import { writeChunked } from './lib/stdio-writer.js';

const server = createDemoServer('stderr-flood');
const startupBytes = server.knobs.int('bytes');
const chunkBytes = Math.max(1, server.knobs.int('chunk-bytes'));

const LOG_LINE = '[stderr-flood] debug: very chatty log line that nobody asked for, 0123456789\n';

/** Writes `bytes` bytes of log lines to stderr, chunk by chunk. */
async function flood(bytes: number): Promise<void> {
  const text = LOG_LINE.repeat(Math.ceil(bytes / LOG_LINE.length)).slice(0, bytes);
  await writeChunked(process.stderr, text, { chunkBytes });
}

server.mcp.registerTool(
  'flood',
  {
    description: 'Writes `bytes` bytes of log lines to stderr, then answers.',
    inputSchema: {
      bytes: z.number().int().min(0).optional().describe('Bytes of stderr (default: --bytes)'),
    },
  },
  async ({ bytes = startupBytes }) => {
    await flood(bytes);
    return textResult(`wrote ${bytes} bytes to stderr`);
  },
);
registerEcho(server);

runMain(server.id, async () => {
  await startDemoServer(server);
  // Not awaited by the transport: the server keeps answering while the flood drains.
  flood(startupBytes).catch((error: unknown) => server.log(`flood failed: ${String(error)}`));
});
