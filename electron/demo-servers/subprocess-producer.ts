/**
 * Demo `subprocess-producer`: `run` starts a child command with huge output and does what a
 * tool wrapping a command should do — drain the child's stdout completely (an unread pipe would
 * block the child), keep only a bounded head and tail, report `truncated` and the total, and
 * kill the child when the request is cancelled (the SDK aborts the request's AbortSignal).
 */

import { spawn } from 'node:child_process';
import * as z from 'zod';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('subprocess-producer');
const knobs = {
  bytes: server.knobs.int('bytes'),
  keep: server.knobs.int('keep'),
  chunkBytes: Math.max(1, server.knobs.int('chunk-bytes')),
  chunkDelayMs: server.knobs.int('chunk-delay-ms'),
};

// The child: a Node one-liner writing `total` bytes of text lines, awaiting 'drain' itself.
const CHILD_SCRIPT = `
const [total, chunk, delay] = process.argv.slice(1).map(Number);
const line = 'the quick brown fox jumps over the lazy dog 0123456789\\n';
const block = Buffer.from(line.repeat(Math.ceil(chunk / line.length))).subarray(0, chunk);
let sent = 0;
(async () => {
  while (sent < total) {
    const n = Math.min(chunk, total - sent);
    sent += n;
    if (!process.stdout.write(block.subarray(0, n))) await new Promise((r) => process.stdout.once('drain', r));
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  }
})();
`;

interface Capture {
  head: Buffer;
  tail: Buffer;
  total: number;
}

/** Keeps the first and last `keep` bytes of a stream of chunks, counting everything. */
function capture(keep: number): Capture & { add(chunk: Buffer): void } {
  const state = {
    head: Buffer.alloc(0),
    tail: Buffer.alloc(0),
    total: 0,
    add(chunk: Buffer): void {
      state.total += chunk.length;
      if (state.head.length < keep) {
        const take = chunk.subarray(0, keep - state.head.length);
        state.head = Buffer.concat([state.head, take]);
        chunk = chunk.subarray(take.length);
      }
      if (chunk.length > 0 && keep > 0) {
        state.tail = Buffer.concat([state.tail, chunk]).subarray(-keep);
      }
    },
  };
  return state;
}

const outputSchema = {
  command: z.string(),
  totalBytes: z.number(),
  headBytes: z.number(),
  tailBytes: z.number(),
  omittedBytes: z.number(),
  truncated: z.boolean(),
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
};

server.mcp.registerTool(
  'run',
  {
    description:
      'Runs a command printing `bytes` bytes; returns a bounded head and tail of its output.',
    inputSchema: {
      bytes: z.number().int().min(0).optional().describe('Output size of the command (bytes)'),
    },
    outputSchema,
  },
  async ({ bytes = knobs.bytes }, extra) => {
    const args = [
      '-e',
      CHILD_SCRIPT,
      String(bytes),
      String(knobs.chunkBytes),
      String(knobs.chunkDelayMs),
    ];
    const command = `node -e <writer> ${bytes} ${knobs.chunkBytes} ${knobs.chunkDelayMs}`;
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const out = capture(knobs.keep);
    child.stdout.on('data', (chunk: Buffer) => out.add(chunk));

    const onAbort = (): void => {
      child.kill('SIGKILL');
      server.log(`cancelled: killed child ${child.pid} after ${out.total} bytes`);
    };
    extra.signal.addEventListener('abort', onAbort, { once: true });
    // A cancellation read in the same chunk as the request aborts the signal before this
    // handler runs, and 'abort' never fires again: `pipescope check`'s cancel-before-work
    // found the child then ran to its end.
    if (extra.signal.aborted) onAbort();
    const [exitCode, signal] = await new Promise<[number | null, string | null]>(
      (resolve, reject) => {
        child.once('error', reject);
        // 'close', not 'exit': all of stdout has been read by then.
        child.once('close', (code, sig) => resolve([code, sig]));
      },
    ).finally(() => extra.signal.removeEventListener('abort', onAbort));

    const omitted = Math.max(0, out.total - out.head.length - out.tail.length);
    const structured = {
      command,
      totalBytes: out.total,
      headBytes: out.head.length,
      tailBytes: out.tail.length,
      omittedBytes: omitted,
      truncated: omitted > 0,
      exitCode,
      signal,
    };
    const summary = structured.truncated
      ? `Command printed ${out.total} bytes; showing the first ${out.head.length} and the last ` +
        `${out.tail.length}, ${omitted} bytes in the middle were omitted. Narrow the command ` +
        '(filter or limit its output) to see them.'
      : `Command printed ${out.total} bytes, all shown.`;
    return {
      content: [
        { type: 'text', text: summary },
        { type: 'text', text: out.head.toString('utf8') },
        ...(out.tail.length > 0
          ? [{ type: 'text' as const, text: out.tail.toString('utf8') }]
          : []),
      ],
      structuredContent: structured,
    };
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
