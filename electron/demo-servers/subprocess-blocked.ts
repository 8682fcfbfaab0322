/**
 * Demo `subprocess-blocked`: the broken twin of subprocess-producer. `run` starts a child
 * that prints a lot, reads only the first `read-bytes` of its output (the "head" it wanted),
 * stops reading and then waits for the child to exit. The child cannot exit: its next write
 * finds the pipe full and blocks until someone reads, and nobody will. The server's event loop
 * stays free (ping answers), yet the call never ends, and a cancellation kills nothing (that
 * is the bug; the fix is subprocess-producer's). The child stays in the server's process
 * group, so the stop ladder's signal to the group ends it with the server; if the server dies
 * alone, the child's next write fails (EPIPE) and it exits too.
 */

import { spawn } from 'node:child_process';
import * as z from 'zod';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('subprocess-blocked');
const knobs = {
  bytes: server.knobs.int('bytes'),
  readBytes: server.knobs.int('read-bytes'),
};

// The child: a Node one-liner writing `total` bytes in 64 KiB blocking write(1) calls, the way
// a C program (or `yes`) writes: when the pipe is full the call simply waits. One line, with a
// name first, so its command line reads well in a process list.
const CHILD_SCRIPT = [
  '/* subprocess-blocked child: prints argv[1] bytes */',
  "const fs = require('node:fs');",
  'const total = Number(process.argv[1]);',
  "const block = Buffer.alloc(65536, 'pipescope subprocess output line 0123456789\\n');",
  'const nap = new Int32Array(new SharedArrayBuffer(4));',
  'for (let sent = 0; sent < total; ) {',
  '  try { sent += fs.writeSync(1, block, 0, Math.min(block.length, total - sent)); }',
  "  catch (e) { if (e.code !== 'EAGAIN') process.exit(e.code === 'EPIPE' ? 0 : 1); Atomics.wait(nap, 0, 0, 5); }",
  '}',
].join(' ');

server.mcp.registerTool(
  'run',
  {
    description:
      'Runs a command printing `bytes` bytes, keeps the first part of its output, waits for it to exit.',
    inputSchema: {
      bytes: z.number().int().min(0).optional().describe('Output size of the command (bytes)'),
    },
  },
  async ({ bytes = knobs.bytes }, extra) => {
    const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, String(bytes)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server.log(`run: started child ${child.pid} (${bytes} bytes of output)`);
    const head: Buffer[] = [];
    let got = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      if (got >= knobs.readBytes) return;
      head.push(chunk);
      got += chunk.length;
      if (got >= knobs.readBytes) {
        // The bug: the rest of the output is never read, so the child's pipe fills up.
        child.stdout.pause();
        server.log(`run: read ${got} bytes, enough; waiting for child ${child.pid} to exit`);
      }
    });
    // The SDK aborts the signal on notifications/cancelled; this tool only says so.
    extra.signal.addEventListener(
      'abort',
      () => server.log(`run: request cancelled, still waiting for child ${child.pid}`),
      { once: true },
    );
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c, s) => resolve([c, s]));
    });
    const text = Buffer.concat(head).toString('utf8', 0, Math.min(got, knobs.readBytes));
    return {
      content: [
        {
          type: 'text',
          text: `child exited (code ${code}, signal ${signal}); first ${got} bytes:`,
        },
        { type: 'text', text },
      ],
    };
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
