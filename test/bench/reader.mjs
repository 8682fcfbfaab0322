/**
 * One benchmark measurement: `node reader.mjs <reader> <workload>`.
 *
 * Spawns the generator (a real child process writing to a real pipe), reads its stdout with
 * one reader implementation, and prints one JSON line. Run in a fresh process per measurement,
 * so maxRSS is this reader's peak alone (RUSAGE_SELF: the generator is not counted).
 *
 *   wallMs        generator's first write -> last frame / EOF (what the table shows)
 *   spawnToEndMs  spawn -> last frame / EOF (adds node start-up and workload generation)
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWorkload } from './workloads.mjs';

const GENERATOR = fileURLToPath(new URL('./generator.mjs', import.meta.url));
const MiB = 1024 * 1024;
const now = () => process.hrtime.bigint();

/** Reads the generator's stdout; resolves when the stream closed and the child exited. */
function runChild(spec, stampFile, { onData, onEnd }) {
  const child = spawn(process.execPath, [GENERATOR, spec, stampFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const ended = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => onData(chunk, child));
    child.stdout.on('error', reject);
    // 'close' also comes after destroy() (a reader that gave up), 'end' would not.
    child.stdout.on('close', () => resolve(onEnd()));
  });
  return Promise.all([ended, exited]).then(([end, exit]) => ({ ...end, exit }));
}

// --- readers: each returns { frames, bytes, tEnd, error? } --------------------------------

async function rawReader(spec, stampFile, { keep = false } = {}) {
  let bytes = 0;
  // `keep`: hold every chunk to the end, as a reader that hands the bytes on must. Through
  // Node's stream reads that is a 64 KiB buffer per read, all alive at once: for a 64 MiB
  // frame ~1.25x `raw` here, a cost a drain that frees each read never pays (`raw-slab`
  // keeps the bytes without it).
  const kept = [];
  return runChild(spec, stampFile, {
    onData: (chunk) => {
      bytes += chunk.length;
      if (keep) kept.push(chunk);
    },
    onEnd: () => ({ frames: null, bytes, tEnd: now(), kept: kept.length }),
  });
}

/**
 * Keeps every byte, like `raw-keep`, but without a buffer per read: the generator's stdout is a
 * Unix socket (libuv's pipes to a child are socketpairs too) whose other end is read with net's
 * `onread`, each read going straight into the free part of a 4 MiB SharedArrayBuffer (up to
 * 256 KiB at a time). What `raw-keep` pays for keeping is Node's stream reads — a 64 KiB buffer
 * per read, ~1,000 of them alive at once for a 64 MiB frame — not keeping as such. Unix only.
 */
async function slabReader(spec, stampFile) {
  if (process.platform === 'win32') throw new Error('Unix sockets only');
  const net = await import('node:net');
  const { mkdtempSync } = await import('node:fs');
  const SLAB = 4 * MiB;
  const READ = 256 * 1024;
  const dir = mkdtempSync(join(tmpdir(), 'pipescope-bench-'));
  const server = net.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(join(dir, 's'), resolve);
  });
  const accepted = new Promise((resolve) => server.once('connection', resolve));
  const slabs = [];
  let slab = null;
  let used = 0;
  let bytes = 0;
  const reader = net.connect({
    path: join(dir, 's'),
    onread: {
      buffer: () => {
        if (slab === null || used === SLAB) {
          slab = new Uint8Array(new SharedArrayBuffer(SLAB));
          slabs.push(slab);
          used = 0;
        }
        return slab.subarray(used, Math.min(SLAB, used + READ));
      },
      callback: (n) => {
        used += n;
        bytes += n;
      },
    },
  });
  const end = await accepted;
  server.close();
  rmSync(dir, { recursive: true, force: true });
  const child = spawn(process.execPath, [GENERATOR, spec, stampFile], {
    stdio: ['ignore', end, 'inherit'],
  });
  end.destroy(); // the child holds its own copy: EOF comes when it lets go
  const [tEnd] = await Promise.all([
    new Promise((resolve, reject) => {
      reader.on('error', reject);
      reader.on('close', () => resolve(now()));
    }),
    new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', resolve);
    }),
  ]);
  return { frames: null, bytes, tEnd, kept: slabs.length };
}

/** The engine's architecture with nothing to do: a worker thread drains stdout and hands the
 *  chunks to main, transferred, a batch per turn of its event loop (as the engine's outbox
 *  does); main counts them. The floor for any reader that drains off the main thread. */
async function workerRawReader(spec, stampFile) {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(
    `const { parentPort, workerData: w } = require('node:worker_threads');
     const child = require('node:child_process').spawn(process.execPath, [w.gen, w.spec, w.stamp], {
       stdio: ['ignore', 'pipe', 'inherit'],
     });
     let batch = [];
     const post = () => {
       if (batch.length === 0) return;
       parentPort.postMessage(batch, batch.map((c) => c.buffer));
       batch = [];
     };
     child.stdout.on('data', (c) => {
       // A pipe read owns its ArrayBuffer (else copy it, as the engine does).
       batch.push(c.byteOffset === 0 && c.buffer.byteLength === c.length ? c : Buffer.from(c));
       if (batch.length === 1) setImmediate(post);
     });
     child.stdout.on('end', () => { post(); parentPort.postMessage('end'); });
     child.on('exit', () => parentPort.postMessage('exit'));`,
    { eval: true, workerData: { gen: GENERATOR, spec, stamp: stampFile } },
  );
  let bytes = 0;
  let tEnd = 0n;
  await new Promise((resolve, reject) => {
    let ended = false;
    let exited = false;
    worker.on('error', reject);
    worker.on('message', (m) => {
      if (m === 'end') ended = true;
      else if (m === 'exit') exited = true;
      else for (const c of m) bytes += c.byteLength;
      if (m === 'end') tEnd = now();
      if (ended && exited) resolve();
    });
  });
  await worker.terminate();
  return { frames: null, bytes, tEnd };
}

/** The SDK's ReadBuffer, driven the way StdioClientTransport drives it (client/stdio.js):
 *  append each chunk, readMessage() until null; a throwing message goes to onerror and the
 *  loop goes on; a throwing append goes to onerror and the transport closes. */
async function sdkReader(spec, stampFile, { maxBufferSize }) {
  const { ReadBuffer } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  const readBuffer = new ReadBuffer(maxBufferSize === undefined ? undefined : { maxBufferSize });
  let frames = 0;
  let bytes = 0;
  let error;
  let closed = false;
  return runChild(spec, stampFile, {
    onData: (chunk, child) => {
      if (closed) return;
      bytes += chunk.length;
      try {
        readBuffer.append(chunk);
        for (;;) {
          try {
            if (readBuffer.readMessage() === null) break;
            frames += 1;
          } catch (e) {
            error ??= `readMessage: ${e.message}`;
          }
        }
      } catch (e) {
        // StdioClientTransport: onerror(error); close() (stdin end, then SIGTERM after 2 s).
        error ??= `append: ${e.message}`;
        closed = true;
        child.kill('SIGKILL');
        child.stdout.destroy();
      }
    },
    onEnd: () => ({ frames, bytes, tEnd: now(), error }),
  });
}

async function framerReader(spec, stampFile, { parse }) {
  const { createFramer } = await import('../../dist/electron/worker/read/framer.js');
  const { LineClassifier } = await import('../../dist/electron/worker/read/line-classifier.js');
  const classifier = parse === 'scan' ? new LineClassifier() : null;
  let frames = 0;
  let error;
  let tLast = 0n;
  const framer = createFramer({
    maxFrameBytes: 128 * MiB,
    onFrame: (frame) => {
      if (classifier) classifier.classify(frame);
      else if (parse) JSON.parse(frame.toString('utf8'));
      frames += 1;
      tLast = now();
    },
    onOversize: (info) => {
      error ??= `oversize frame at ${info.offset}`;
    },
  });
  return runChild(spec, stampFile, {
    onData: (chunk) => framer.push(chunk),
    onEnd: () => {
      const partial = framer.end();
      if (partial) error ??= `${partial} bytes partial at EOF`;
      const tEnd = now();
      return { frames, bytes: framer.stats.bytesIn, tEnd: tLast > tEnd ? tLast : tEnd, error };
    },
  });
}

/** The whole engine: worker thread drains and frames, batches cross to main against credits.
 *  Kept small on purpose: this is the part to adapt when the Transport API moves. */
async function engineReader(spec, stampFile, { Transport }) {
  const expected = parseWorkload(spec).frames;
  const t = Transport.start({
    command: process.execPath,
    args: [GENERATOR, spec, stampFile],
    env: {},
    maxFrameBytes: 128 * MiB,
    onOversize: 'discard',
    overloadPolicy: 'pause',
    spillMaxBytes: 256 * MiB,
    readerMode: 'drain',
  });
  let frames = 0;
  let bytes = 0;
  let tEnd = 0n;
  let stdoutEnded = false;
  let exited = false;
  const result = await new Promise((resolve) => {
    const done = (error) => resolve({ frames, bytes, tEnd: tEnd || now(), error });
    const check = () => {
      if (stdoutEnded && exited && frames >= expected) done();
    };
    t.on('frames', (batch) => {
      let sum = 0;
      for (const f of batch) sum += f.bytes;
      frames += batch.length;
      bytes += sum + batch.length; // + the newline of each line
      tEnd = now();
      t.credit(batch.length, sum);
      check();
    });
    t.on('stdout-end', () => {
      stdoutEnded = true;
      if (now() > tEnd) tEnd = now();
      check();
    });
    t.on('exit', () => {
      exited = true;
      check();
      // Frames still in flight after EOF and exit would be a bug worth seeing, not a hang.
      setTimeout(() => done(`only ${frames}/${expected} frames 5 s after exit`), 5000).unref();
    });
    t.on('spawn-error', (e) => done(`spawn-error: ${e.message}`));
    t.on('fatal', (message) => done(`fatal: ${message}`));
  });
  await t.stop();
  return result;
}

// --- main ----------------------------------------------------------------------------------

async function loadReader(name) {
  switch (name) {
    case 'raw':
      return (spec, stamp) => rawReader(spec, stamp);
    case 'raw-keep':
      return (spec, stamp) => rawReader(spec, stamp, { keep: true });
    case 'raw-slab':
      return (spec, stamp) => slabReader(spec, stamp);
    case 'worker-raw':
      return (spec, stamp) => workerRawReader(spec, stamp);
    case 'sdk':
      return (spec, stamp) => sdkReader(spec, stamp, {});
    case 'sdk-nocap':
      // The cap is a public constructor option of ReadBuffer: lift it, same code path.
      return (spec, stamp) => sdkReader(spec, stamp, { maxBufferSize: Number.POSITIVE_INFINITY });
    case 'framer':
      return (spec, stamp) => framerReader(spec, stamp, { parse: true });
    case 'framer-scan':
      return (spec, stamp) => framerReader(spec, stamp, { parse: 'scan' });
    case 'framer-noparse':
      return (spec, stamp) => framerReader(spec, stamp, { parse: false });
    case 'engine': {
      const mod = await import('../../dist/electron/engine/transport/transport.js');
      if (typeof mod.Transport?.start !== 'function') throw new Error('no Transport.start export');
      return (spec, stamp) => engineReader(spec, stamp, mod);
    }
    default:
      throw new Error(`unknown reader ${name}`);
  }
}

async function main() {
  const [readerName, spec] = process.argv.slice(2);
  const workload = parseWorkload(spec);
  let read;
  try {
    read = await loadReader(readerName);
    // Warm the module graph the reader needs before the baseline is taken.
    if (readerName.startsWith('sdk')) await import('@modelcontextprotocol/sdk/shared/stdio.js');
    if (readerName.startsWith('framer')) {
      await import('../../dist/electron/worker/read/framer.js');
      await import('../../dist/electron/worker/read/line-classifier.js');
    }
  } catch (e) {
    process.stdout.write(
      `${JSON.stringify({ reader: readerName, workload: spec, status: 'unavailable', error: e.message })}\n`,
    );
    return;
  }
  const stampFile = join(tmpdir(), `pipescope-bench-${process.pid}-${Date.now()}.stamp`);
  const baselineRssKiB = Math.round(process.memoryUsage.rss() / 1024);
  const tSpawn = now();
  let r;
  try {
    r = await read(spec, stampFile);
  } catch (e) {
    r = { frames: null, bytes: null, tEnd: now(), error: `threw: ${e.message}` };
  }
  let tWrite = null;
  try {
    tWrite = BigInt(readFileSync(stampFile, 'utf8').trim());
  } catch {
    // The generator was killed before it finished (a reader that gave up): no stamp.
  }
  rmSync(stampFile, { force: true });
  const bad =
    r.error ??
    (r.bytes !== null && r.bytes !== workload.streamBytes
      ? `read ${r.bytes} of ${workload.streamBytes} bytes`
      : r.frames !== null && r.frames !== workload.frames
        ? `${r.frames} of ${workload.frames} frames`
        : undefined);
  const result = {
    reader: readerName,
    workload: spec,
    status: bad ? 'failed' : 'ok',
    error: bad,
    wallMs: tWrite === null ? null : Number(r.tEnd - tWrite) / 1e6,
    spawnToEndMs: Number(r.tEnd - tSpawn) / 1e6,
    frames: r.frames,
    bytes: r.bytes,
    maxRssKiB: process.resourceUsage().maxRSS,
    baselineRssKiB,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
process.exit(0);
