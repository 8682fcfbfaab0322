/**
 * Demo `server-requests`: right after notifications/initialized the server asks the host
 * ping, roots/list and sampling/createMessage, and records what came back (an answer, a
 * JSON-RPC error, or nothing before the timeout). `last_replies` and stderr report it.
 */

import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import {
  createDemoServer,
  registerEcho,
  runMain,
  startDemoServer,
  textResult,
} from './lib/server.js';

const server = createDemoServer('server-requests');
const timeout = server.knobs.int('timeout-ms');

interface Reply {
  method: string;
  outcome: 'result' | 'error';
  detail: string;
  ms: number;
}

async function ask(method: string, send: () => Promise<unknown>): Promise<Reply> {
  const started = performance.now();
  let reply: Reply;
  try {
    const result = await send();
    reply = { method, outcome: 'result', detail: JSON.stringify(result), ms: 0 };
  } catch (error) {
    reply = {
      method,
      outcome: 'error',
      detail: error instanceof Error ? error.message : String(error),
      ms: 0,
    };
  }
  reply.ms = Math.round(performance.now() - started);
  server.log(`${method} -> ${reply.outcome}: ${reply.detail.slice(0, 200)} (${reply.ms} ms)`);
  return reply;
}

let replies: Promise<Reply[]> | undefined;

server.mcp.server.oninitialized = () => {
  const sdk = server.mcp.server;
  replies = Promise.all([
    ask('ping', () => sdk.request({ method: 'ping' }, EmptyResultSchema, { timeout })),
    ask('roots/list', () => sdk.listRoots(undefined, { timeout })),
    ask('sampling/createMessage', () =>
      sdk.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Say hi in one word.' } }],
          maxTokens: 16,
        },
        { timeout },
      ),
    ),
  ]);
};

server.mcp.registerTool(
  'last_replies',
  {
    description:
      'Waits for the start-up server→client requests and reports what the host answered.',
    inputSchema: {},
    outputSchema: {
      replies: z.array(
        z.object({
          method: z.string(),
          outcome: z.enum(['result', 'error']),
          detail: z.string(),
          ms: z.number(),
        }),
      ),
    },
  },
  async () => {
    const list = replies ? await replies : [];
    const lines = list.map((r) => `${r.method}: ${r.outcome} ${r.detail.slice(0, 200)}`);
    return {
      ...textResult(list.length ? lines.join('\n') : 'no requests sent yet (not initialized?)'),
      structuredContent: { replies: list },
    };
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
