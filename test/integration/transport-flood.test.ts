/**
 * The transport's hand-off under a flood, on a real pipe and a real worker: every frame reaches
 * main exactly (offset, length, kind, id and bytes), in order, across dozens of batches under
 * small credits, while the batches' metadata buffers go back to the worker with the credits
 * and are written again for later batches (MetaColumns.take; that the outbox does write into
 * them is asserted in outbox-batches.test.ts). A reused buffer written at the wrong rows or not
 * cut to its batch would show here as a wrong frame.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { type Frame, Transport } from '../../dist/electron/engine/transport/transport.js';
import { withTimeout } from './helpers.js';

const N = 60_000;

/** Line i of the flood: mostly plain responses (runs), a notification every 997th line and a
 *  string id every 1,009th (frames that carry extras), lengths varying with i. */
const SERVER = `
const line = (i) =>
  i % 997 === 0
    ? JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { i } })
    : JSON.stringify({ jsonrpc: '2.0', id: i % 1009 === 0 ? 's' + i : i, result: { t: 'x'.repeat(i % 300) } });
const out = [];
for (let i = 0; i < ${N}; i++) out.push(line(i));
process.stdout.write(out.join('\\n') + '\\n', () => process.exit(0));
`;

function expected(i: number): { text: string; kind: string; id?: number | string } {
  if (i % 997 === 0) {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { i } });
    return { text, kind: 'notification' };
  }
  const id = i % 1009 === 0 ? `s${i}` : i;
  const text = JSON.stringify({ jsonrpc: '2.0', id, result: { t: 'x'.repeat(i % 300) } });
  return { text, kind: 'response', id };
}

let transport: Transport | null = null;

/** A transport on `node -e script`, draining, 1 MiB frame limit. */
function start(script: string, credits: { creditFrames?: number; creditBytes?: number } = {}) {
  transport = Transport.start({
    command: process.execPath,
    args: ['-e', script],
    env: {},
    maxFrameBytes: 1024 * 1024,
    onOversize: 'discard',
    overloadPolicy: 'pause',
    spillMaxBytes: 64 * 1024 * 1024,
    readerMode: 'drain',
    ...credits,
  });
  return transport;
}
const postMessage = Worker.prototype.postMessage;

afterEach(async () => {
  Worker.prototype.postMessage = postMessage;
  await transport?.stop();
  transport = null;
});

describe('transport hand-off under a flood', () => {
  it('delivers 60,000 frames exactly and in order while metadata buffers are recycled', async () => {
    // Count the credits that carried metadata buffers back (what main sends the worker).
    let spareSent = 0;
    Worker.prototype.postMessage = function (this: Worker, msg: unknown, transfer?: never) {
      const m = msg as { type?: string; spare?: unknown[] };
      if (m?.type === 'credit') spareSent += m.spare?.length ?? 0;
      return postMessage.call(this, msg, transfer);
    };
    const t = start(SERVER, {
      creditFrames: 2048, // batches of 512 frames: ~120 batches
      creditBytes: 4 * 1024 * 1024,
    });
    let next = 0;
    let offset = 0;
    let batches = 0;
    const mismatches: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      t.on('frames', (frames: Frame[]) => {
        batches += 1;
        let bytes = 0;
        for (const f of frames) {
          const want = expected(next);
          const got = f.data.toString();
          if (
            mismatches.length < 5 &&
            (got !== want.text ||
              f.offset !== offset ||
              f.bytes !== want.text.length ||
              f.kind !== want.kind ||
              f.id !== want.id)
          ) {
            mismatches.push(`frame ${next}: ${JSON.stringify({ ...f, data: got.slice(0, 80) })}`);
          }
          offset += f.bytes + 1;
          bytes += f.bytes;
          next += 1;
        }
        // Credits go back a tick later, as the session's dispatcher returns them.
        setImmediate(() => t.credit(frames.length, bytes));
        if (next >= N) resolve();
      });
      t.on('fatal', (message: string) => reject(new Error(message)));
      t.on('spawn-error', (e: { message: string }) => reject(new Error(e.message)));
    });
    await withTimeout(done, 20_000, 'all frames');
    expect(mismatches).toEqual([]);
    expect(next).toBe(N);
    expect(batches).toBeGreaterThan(20);
    expect(spareSent).toBeGreaterThan(20);
  });

  it('batches a server that writes a line per write: far fewer posts than pipe reads', async () => {
    // As SDK servers do: one write per message, each awaited after some work (~30 µs here), so
    // most pipe reads hold a line or a few. Main must not get (and credit back) a batch per read.
    const lines = 5_000;
    const server = `
      let i = 0;
      const next = () => {
        if (i === ${lines}) return process.exit(0);
        const until = performance.now() + 0.03;
        while (performance.now() < until);
        const line = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { i: i++ } });
        process.stdout.write(line + '\\n', next);
      };
      next();`;
    const t = start(server);
    const started = performance.now();
    let frames = 0;
    let batches = 0;
    let inOrder = true;
    const done = new Promise<void>((resolve, reject) => {
      t.on('frames', (batch: Frame[]) => {
        batches += 1;
        let bytes = 0;
        for (const f of batch) {
          if (!f.data.toString().includes(`"i":${frames}}`)) inOrder = false;
          frames += 1;
          bytes += f.bytes;
        }
        t.credit(batch.length, bytes);
        if (frames >= lines) resolve();
      });
      t.on('fatal', (message: string) => reject(new Error(message)));
    });
    await withTimeout(done, 20_000, 'all frames');
    const elapsedMs = performance.now() - started;
    expect(inOrder).toBe(true);
    expect(frames).toBe(lines);
    // A post per read is thousands here (a line or two per read at the server's pace, ~7 a
    // millisecond); paced, at most one a millisecond while lines keep coming.
    expect(batches).toBeLessThanOrEqual(elapsedMs + 10);
  });
});
