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
  // `keep`: hold every chunk to the end, as any reader that hands the bytes on must. Fresh
  // memory costs page faults that a drain reusing one buffer never pays: the floor for a
  // reader that keeps a 64 MiB frame is this, not `raw`.
  const kept = [];
  return runChild(spec, stampFile, {
    onData: (chunk) => {
      bytes += chunk.length;
      if (keep) kept.push(chunk);
    },
    onEnd: () => ({ frames: null, bytes, tEnd: now(), kept: kept.length }),
  });
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
  const { createFramer } = await import('../../dist/electron/engine/framer.js');
  const { LineClassifier } = await import('../../dist/electron/engine/line-classifier.js');
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
      const mod = await import('../../dist/electron/engine/transport.js');
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
      await import('../../dist/electron/engine/framer.js');
      await import('../../dist/electron/engine/line-classifier.js');
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
