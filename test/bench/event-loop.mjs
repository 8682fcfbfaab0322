/**
 * Main-thread responsiveness while a server floods: `node event-loop.mjs [--gib N]`.
 *
 * A real server writes N GiB (default 1) of 64 KiB JSON-RPC lines as fast as the pipe allows.
 * Two readers take it in turn, each in this process, while `monitorEventLoopDelay` samples the
 * main thread's event-loop lag: the Pipescope engine (worker thread drains, frames and classifies;
 * main only receives batches and returns credits) and the MCP SDK's ReadBuffer on the main
 * thread (as StdioClientTransport does). Prints lag p50/p99/max, throughput and peak RSS.
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const GiB = 1024 ** 3;
const FRAME = 64 * 1024;
const SERVER = fileURLToPath(new URL('./flood-server.mjs', import.meta.url));
const gibArg = process.argv.indexOf('--gib');
const total = Math.round((gibArg > 0 ? Number(process.argv[gibArg + 1]) : 1) * GiB);

function lagStats(h) {
  const ms = (ns) => ns / 1e6;
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

async function viaEngine() {
  const { Transport } = await import('../../dist/electron/engine/transport/transport.js');
  const t = Transport.start({
    command: process.execPath,
    args: [SERVER, String(total), String(FRAME)],
    env: {},
    maxFrameBytes: 32 * 1024 * 1024,
    onOversize: 'discard',
    overloadPolicy: 'pause',
    spillMaxBytes: 256 * 1024 * 1024,
    readerMode: 'drain',
  });
  let bytes = 0;
  await new Promise((resolve) => {
    t.on('frames', (batch) => {
      let sum = 0;
      for (const f of batch) sum += f.bytes;
      bytes += sum + batch.length;
      t.credit(batch.length, sum);
    });
    t.on('stdout-end', resolve);
    t.on('fatal', resolve);
  });
  await t.stop();
  return bytes;
}

async function viaSdk() {
  const { ReadBuffer } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  const child = spawn(process.execPath, [SERVER, String(total), String(FRAME)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rb = new ReadBuffer();
  let bytes = 0;
  child.stdout.on('data', (chunk) => {
    rb.append(chunk);
    for (;;) {
      const msg = rb.readMessage();
      if (msg === null) break;
      bytes += FRAME;
    }
  });
  await new Promise((resolve) => child.on('close', resolve));
  return bytes;
}

async function measure(name, run) {
  global.gc?.();
  const h = monitorEventLoopDelay({ resolution: 1 });
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  h.enable();
  const t0 = performance.now();
  const bytes = await run();
  const ms = performance.now() - t0;
  h.disable();
  clearInterval(sampler);
  const lag = lagStats(h);
  return {
    name,
    bytes,
    ms,
    mibs: bytes / 1024 / 1024 / (ms / 1000),
    lag,
    peakOverBaseMiB: (peak - rssBefore) / 1024 / 1024,
  };
}

const rows = [
  await measure('engine (worker)', viaEngine),
  await measure('sdk ReadBuffer (main)', viaSdk),
];
console.log(
  `\nmain-thread event-loop lag while a server floods ${(total / GiB).toFixed(2)} GiB of 64 KiB frames`,
);
console.log(
  'reader                  MiB/s  lag p50 ms  lag p99 ms  lag max ms  RSS +MiB  target p99 < 20 ms',
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(22)} ${r.mibs.toFixed(0).padStart(6)}  ${r.lag.p50.toFixed(1).padStart(10)}  ` +
      `${r.lag.p99.toFixed(1).padStart(10)}  ${r.lag.max.toFixed(1).padStart(10)}  ` +
      `${r.peakOverBaseMiB.toFixed(0).padStart(8)}  ${r.name.startsWith('engine') ? (r.lag.p99 < 20 ? 'PASS' : 'MISS') : '-'}`,
  );
}
