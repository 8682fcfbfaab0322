/**
 * Demo `ignores-sigterm`: ignores stdin EOF and SIGTERM and stays alive, so only the stop
 * ladder's SIGKILL (to the process group) ends it. `--grandchild=true` also starts `sleep 300`
 * that inherits stdout and stderr: the pipe stays open until the whole group is killed.
 */

import { spawn } from 'node:child_process';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('ignores-sigterm');
registerEcho(server);

process.on('SIGTERM', () => server.log('SIGTERM received, ignoring it'));
process.stdin.on('end', () => server.log('stdin closed, staying alive anyway'));
// Keeps the event loop alive after EOF (the SDK's transport does not exit on EOF by itself,
// but a closed stdin leaves nothing else scheduled).
setInterval(() => {}, 60_000);

runMain(server.id, async () => {
  await startDemoServer(server);
  if (server.knobs.bool('grandchild')) {
    const sleeper = spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'inherit'] });
    sleeper.on('error', (error) => server.log(`could not start sleep: ${error.message}`));
    server.log(`grandchild sleep 300 started (pid ${sleeper.pid}), holding stdout`);
  }
});
