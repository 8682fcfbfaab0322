/**
 * Demo `cpu-bound`: `crunch` computes for `ms` milliseconds in one synchronous loop on the
 * event loop, then answers. While it spins nothing else runs: stdin is not read, so a
 * cancellation (and a ping, and stdin closing) waits in the pipe until the loop ends, and the
 * SDK only sees the cancellation after the answer is already on its way.
 */

import * as z from 'zod';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('cpu-bound');
const defaultMs = server.knobs.int('ms');

/** Busy work that never yields: a square-root chain until the clock says stop. */
function spin(ms: number): number {
  const end = performance.now() + ms;
  let x = 0;
  let rounds = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 10_000; i++) x = Math.sqrt(x + i);
    rounds++;
  }
  return x > -1 ? rounds : 0; // uses x, so the loop cannot be optimised away
}

server.mcp.registerTool(
  'crunch',
  {
    description: 'Computes for `ms` milliseconds without yielding, then answers.',
    inputSchema: {
      ms: z.number().int().min(0).max(600_000).optional().describe('How long to compute (ms)'),
    },
  },
  async ({ ms = defaultMs }) => {
    server.log(`crunch: computing for ${ms} ms; nothing else runs until it ends`);
    const started = performance.now();
    const rounds = spin(ms);
    const took = Math.round(performance.now() - started);
    server.log(`crunch: done after ${took} ms`);
    return { content: [{ type: 'text', text: `crunched ${rounds} rounds in ${took} ms` }] };
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
