/**
 * Demo `malformed-json`: `broken` writes a line that looks like the start of a JSON-RPC
 * message but is cut off (invalid JSON), then answers normally — the host must count one
 * parse error and keep every message after it.
 */

import {
  createDemoServer,
  registerEcho,
  runMain,
  startDemoServer,
  textResult,
} from './lib/server.js';

const server = createDemoServer('malformed-json');
const badLines = server.knobs.int('lines');

// A notification cut off mid-object: the kind of line a crashed serializer or a racing
// second writer leaves behind. Newline-terminated, so framing itself stays in step.
const BROKEN_LINE =
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"cut\n';

server.mcp.registerTool(
  'broken',
  {
    description: 'Writes invalid JSON line(s) to stdout, then answers normally.',
    inputSchema: {},
  },
  async () => {
    for (let i = 0; i < badLines; i++) process.stdout.write(BROKEN_LINE);
    return textResult(`wrote ${badLines} invalid line(s) before this response`);
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
