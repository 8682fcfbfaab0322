/**
 * The `produce` tool shared by slow-producer and ignores-cancel: a loop of steps with a delay,
 * one notifications/progress per step when the caller sent a progress token, and a result at
 * the end. Whether the loop listens to the request's AbortSignal is the whole difference
 * between the two scenarios.
 */

import * as z from 'zod';
import type { DemoServer } from './server.js';
import { textResult } from './server.js';
import { sleep } from './stdio-writer.js';

export interface ProduceOptions {
  /** true: stop the loop when the SDK aborts the request's signal (on cancellation). */
  honourCancel: boolean;
}

export function registerProduce(server: DemoServer, options: ProduceOptions): void {
  const defaultSteps = server.knobs.int('steps');
  const defaultDelay = server.knobs.int('delay-ms');
  server.mcp.registerTool(
    'produce',
    {
      description:
        'Works for `steps` steps of `delayMs` each, sending progress per step, then answers.',
      inputSchema: {
        steps: z.number().int().min(1).max(100_000).optional().describe('Number of steps'),
        delayMs: z.number().int().min(0).max(60_000).optional().describe('Delay per step (ms)'),
      },
    },
    async ({ steps = defaultSteps, delayMs = defaultDelay }, extra) => {
      const signal = options.honourCancel ? extra.signal : undefined;
      const token = extra._meta?.progressToken;
      let done = 0;
      for (; done < steps; done++) {
        if (signal?.aborted) break;
        await sleep(delayMs, signal);
        if (signal?.aborted) break;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: done + 1, total: steps },
          });
        }
      }
      // Say on stderr where the loop ended, so a person (and a test) sees the producer stop.
      if (signal?.aborted)
        server.log(`produce stopped after ${done} of ${steps} steps (cancelled)`);
      // After a cancellation the SDK drops this result (the spec says not to answer);
      // it is returned only so the handler settles.
      return textResult(`produced ${done} of ${steps} steps`);
    },
  );
}
