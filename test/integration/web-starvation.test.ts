/**
 * Browser mode cannot be starved without the token (issue 18, item 7): a local process holding
 * thousands of connections that never send a request does not make `GET /` wait, and does not
 * take the server's file descriptors. The attacker is a real child process, reconnecting as
 * fast as its connections are dropped.
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/host/session-manager.js';
import { startWebServer, type WebServer } from '../../dist/electron/web/server.js';
import { recordedPids, waitFor } from './helpers.js';
import { http, makeStaticDir } from './web-helpers.js';

const dir = makeStaticDir();
const manager = new SessionManager();
let server: WebServer;

beforeAll(async () => {
  server = await startWebServer({ port: 0, staticDir: dir.root, manager });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir.base, { recursive: true, force: true });
});

/** Opens `n` silent connections to `port` and keeps `n` open, reconnecting whatever closes. */
const ATTACKER = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
let open = 0, opened = 0, peak = 0;
function one() {
  const s = net.connect(port, '127.0.0.1');
  s.on('connect', () => { open++; opened++; peak = Math.max(peak, open); });
  s.on('error', () => {});
  s.on('close', () => { open--; if (!stopping) setImmediate(one); });
}
let stopping = false;
for (let i = 0; i < n; i++) one();
setInterval(() => process.stdout.write(JSON.stringify({ open, opened, peak }) + '\\n'), 200);
process.on('SIGTERM', () => { stopping = true; process.exit(0); });
`;

describe('browser mode under silent connections', () => {
  it.runIf(process.platform === 'linux')(
    'GET / with the token answers fast while 19,000 silent connections press on',
    async () => {
      const attacker = spawn(process.execPath, ['-e', ATTACKER, String(server.port), '19000'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      if (attacker.pid) recordedPids.add(attacker.pid);
      let last = { open: 0, opened: 0, peak: 0 };
      attacker.stdout.setEncoding('utf8').on('data', (s: string) => {
        const line = s.trim().split('\n').at(-1);
        if (line) last = JSON.parse(line);
      });
      try {
        await waitFor(() => last.opened >= 19_000 || undefined, 30_000, 'the attacker connecting');
        const times: number[] = [];
        for (let i = 0; i < 10; i++) {
          const t0 = performance.now();
          const r = await http(server.port, { target: `/?token=${server.token}` });
          times.push(performance.now() - t0);
          expect(r.status).toBe(200);
        }
        times.sort((a, b) => a - b);
        const fds = readdirSync('/proc/self/fd').length;
        console.log(
          `[web-starvation] ${last.opened} connections opened, GET / median ${times[5].toFixed(1)} ms, max ${times[9].toFixed(1)} ms; ${server.stats().silentDropped} dropped, ${fds} fds here`,
        );
        // The target is a median under 100 ms (50-70 ms measured alone on 2 cores, against an
        // attacker reconnecting flat out); budgets are generous for a loaded CI machine, and
        // under 2 s means no SYN was dropped and retried.
        expect(times[5]).toBeLessThan(250);
        expect(times[9]).toBeLessThan(2000);
        expect(server.stats().silentDropped).toBeGreaterThan(10_000);
        expect(fds).toBeLessThan(1000);
      } finally {
        attacker.kill('SIGTERM');
        await new Promise((r) => attacker.once('exit', r));
      }
    },
    60_000,
  );
});
