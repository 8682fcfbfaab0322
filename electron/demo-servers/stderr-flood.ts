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
import { writeRepeated } from './lib/stdio-writer.js';

const server = createDemoServer('stderr-flood');
const startupBytes = server.knobs.int('bytes');
const chunkBytes = Math.max(1, server.knobs.int('chunk-bytes'));

const LOG_LINE = '[stderr-flood] debug: very chatty log line that nobody asked for, 0123456789\n';

/** Writes `bytes` bytes of log lines to stderr, chunk by chunk (never all held at once). */
async function flood(bytes: number): Promise<void> {
  await writeRepeated(process.stderr, LOG_LINE, bytes, { chunkBytes });
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
