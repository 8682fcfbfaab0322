/**
 * Demo `notification-flood`: `flood` sends tens of thousands of notifications/message (or
 * notifications/progress) as fast as stdout takes them, then answers. Each send awaits the
 * transport (which awaits 'drain'), so the server is fast but never buffers without bound.
 * `mark` puts a text of your choice in notification number `markAt` (from 1): something to
 * find with a payload search among thousands of frames.
 */

import * as z from 'zod';
import {
  createDemoServer,
  registerEcho,
  runMain,
  startDemoServer,
  textResult,
} from './lib/server.js';

const server = createDemoServer('notification-flood', { logging: true });
const defaultCount = server.knobs.int('count');
const defaultKind = server.knobs.str('kind');
const payload = 'n'.repeat(server.knobs.int('payload-bytes'));
if (defaultKind !== 'logging' && defaultKind !== 'progress') {
  server.log(`--kind must be logging or progress, got ${defaultKind}`);
  process.exit(2);
}

server.mcp.registerTool(
  'flood',
  {
    description: 'Sends `count` notifications (logging or progress) quickly, then answers.',
    inputSchema: {
      count: z.number().int().min(0).max(10_000_000).optional().describe('How many'),
      kind: z.enum(['logging', 'progress']).optional().describe('logging or progress'),
      mark: z.string().max(1000).optional().describe('A text carried by one notification'),
      markAt: z.number().int().min(1).optional().describe('Which notification carries mark'),
    },
  },
  async ({ count = defaultCount, kind = defaultKind, mark, markAt = count }, extra) => {
    // Progress needs the caller's token; without one, fall back to a token of our own so the
    // flood still happens (a host should flag the unknown token).
    const token = extra._meta?.progressToken ?? `flood-${String(extra.requestId)}`;
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      // A cancelled flood stops (the SDK then sends no answer for it).
      if (extra.signal.aborted) break;
      const text = mark !== undefined && i + 1 === markAt ? mark : payload;
      if (kind === 'progress') {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i + 1, total: count, message: text },
        });
      } else {
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'flood', data: { i, payload: text } },
        });
      }
    }
    const ms = Math.max(1, performance.now() - started);
    return textResult(`sent ${count} ${kind} notifications in ${ms.toFixed(0)} ms`);
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
