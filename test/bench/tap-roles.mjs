/**
 * The processes test/bench/tap-cost.mjs starts besides the tap: its servers (`--serve
 * big|big-ask|echo|ready`) and the bare relays it splits the tap's cost with
 * (`--relay-only|--relay-stub|--relay-pipe|--relay-native -- <command>`).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RELAY = path.join(ROOT, 'dist', 'electron', 'tap', 'relay.js');
const NATIVE = path.join(ROOT, 'dist', 'electron', 'tap', 'native-relay.js');
export const FRAME = 64 * 1024 * 1024; // bytes on the wire, newline included
export const READY = '{"jsonrpc":"2.0","method":"ready"}\n';

async function serve(kind) {
  process.stdout.on('error', () => process.exit(1));
  process.stdin.on('end', () => process.exit(0));
  if (kind === 'big' || kind === 'big-ask') {
    const { generateWorkload } = await import('./workloads.mjs');
    const data = generateWorkload(`1x${FRAME - 1}:ascii`);
    if (kind === 'big') process.stdout.write(data);
    else {
      process.stdout.write(READY);
      process.stdin.once('data', () => process.stdout.write(data));
    }
    process.stdin.resume();
  } else if (kind === 'ready') {
    process.stdout.write(READY);
    process.stdin.resume();
  } else if (kind === 'echo') {
    let pending = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => {
      pending += d;
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        const m = JSON.parse(pending.slice(0, i));
        pending = pending.slice(i + 1);
        process.stdout.write(
          `{"jsonrpc":"2.0","id":${m.id},"result":${JSON.stringify({ echo: m.params })}}\n`,
        );
      }
    });
  } else {
    process.stderr.write(`unknown server ${kind}\n`);
    process.exit(2);
  }
}

/** The tap's Relay with no observer attached (its tees copy as they do in the tap; the copies
 *  wait, bounded, for an observer that never comes), or with a stub observer: a worker thread
 *  that acknowledges every copy at once and does nothing else. */
async function relayOnly(argv, withStub) {
  const [cmd, ...args] = argv;
  const { Relay } = await import(RELAY);
  const t0 = performance.now();
  const relay = new Relay(cmd, args, process, () => performance.now() - t0);
  if (withStub) {
    const { port1, port2 } = new MessageChannel();
    const stub = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const ack = (to) => (m) => {
         if (m?.data) to.postMessage({ type: 'ack', bytes: m.data.byteLength });
       };
       parentPort.on('message', ack(parentPort));
       workerData.port.on('message', ack(workerData.port));`,
      { eval: true, workerData: { port: port2 }, transferList: [port2] },
    );
    // As main.ts wires the observer: stdin copies to the worker, stdout copies to a port.
    relay.stdinTee.attach(stub);
    stub.on('message', (m) => relay.stdinTee.ack(m.bytes));
    port1.on('message', (m) => relay.onWorkerMessage(m));
    relay.stdoutTee.attach(port1);
    port1.unref();
    stub.unref();
  }
  const end = await relay.done;
  process.exit(end.exit?.code ?? 1);
}

/** The tap's native relay (splice) and what reads its copies, with no observer to take them
 *  (they wait, bounded, then are counted as a gap): what the relay costs by itself. */
async function relayNative(argv) {
  const [cmd, ...args] = argv;
  const { NativeRelay, nativeRelayUnavailable } = await import(NATIVE);
  const why = nativeRelayUnavailable();
  if (why) {
    process.stderr.write(`native relay: ${why}\n`);
    process.exit(3);
  }
  const t0 = performance.now();
  const relay = new NativeRelay(cmd, args, () => performance.now() - t0);
  const end = await relay.done;
  process.exit(end.exit?.code ?? 1);
}

/** The floor for any relay in Node: stream `pipe()` both ways, nothing else. */
function relayPipe([cmd, ...args]) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  process.stdin.pipe(child.stdin);
  child.stdout.pipe(process.stdout);
  child.stdin.on('error', () => {});
  child.on('close', (code) => process.exit(code ?? 1));
}

/** `role`: this process's own first argument (a relay's argv also holds its server's `--serve`). */
async function run(role, argv) {
  if (role === '--serve') await serve(argv[0]);
  else if (role === '--relay-pipe') relayPipe(argv.slice(1));
  else if (role === '--relay-native') await relayNative(argv.slice(1));
  else if (role === '--relay-only' || role === '--relay-stub')
    await relayOnly(argv.slice(1), role === '--relay-stub');
  else {
    process.stderr.write(`unknown role ${role}\n`);
    process.exit(2);
  }
}

// tap-cost.mjs imports FRAME and READY from here too: only a process started on this file runs.
if (process.argv[1] === fileURLToPath(import.meta.url))
  await run(process.argv[2], process.argv.slice(3));
