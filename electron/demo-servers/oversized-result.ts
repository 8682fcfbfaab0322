/**
 * Demo `oversized-result` (the seed fixture): `dump` answers with one ~8 MiB text result.
 * Written through the SDK with a transport that sends each line in 16 KiB chunks awaiting
 * 'drain', so when the host stops reading, the server visibly parks in write() mid-response
 * and says `stdout backpressure observed` on stderr. With `--blocking-stdout=true` its stdout
 * is blocking, as a C or Python server's is, and it waits inside write(1, …) itself.
 */

import * as z from 'zod';
import { ChunkedStdioServerTransport } from './lib/chunked-transport.js';
import {
  createDemoServer,
  registerEcho,
  runMain,
  startDemoServer,
  textResult,
} from './lib/server.js';

const server = createDemoServer('oversized-result');
const defaultBytes = server.knobs.int('bytes');

server.mcp.registerTool(
  'dump',
  {
    description: 'Returns a single text block of `bytes` bytes (default: the --bytes knob).',
    inputSchema: {
      bytes: z.number().int().min(0).optional().describe('Size of the text in bytes'),
    },
  },
  async ({ bytes }) => textResult('x'.repeat(bytes ?? defaultBytes)),
);
registerEcho(server);

// Node makes a pipe or socket stdout non-blocking and keeps what it cannot write in memory:
// blocked, the server sits in its event loop. A C or Python server's stdout is blocking, and
// it sits in write(1, …) instead. libuv's setBlocking gives the demo that second shape.
if (server.knobs.bool('blocking-stdout')) {
  const stdout = process.stdout as unknown as { _handle?: { setBlocking?(on: boolean): number } };
  stdout._handle?.setBlocking?.(true);
}

let reported = false;
const transport = new ChunkedStdioServerTransport({
  chunkBytes: server.knobs.int('chunk-bytes'),
  onBackpressure: () => {
    // Once is enough: the line is the symptom a person (and a test) looks for on stderr.
    if (reported) return;
    reported = true;
    process.stderr.write('stdout backpressure observed\n');
  },
});

runMain(server.id, () => startDemoServer(server, transport));
