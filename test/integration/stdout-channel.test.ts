/**
 * Both ways the transport reads a server's stdout, on real processes: the socket channel (the
 * default on Unix: reads into buffers the worker chooses, a long line into shared slabs) and
 * Node's own pipe (Windows, or a channel that could not be made). The same stream — small
 * lines, a 12 MiB line written 64 KiB at a time, small lines, a partial line at EOF — must give
 * the same frames, byte for byte, with the byte invariant; the long line's bytes reach main in
 * shared memory only through the channel. A paused reader reads nothing on either, and resumes.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameStore } from '../../dist/electron/engine/session/frame-store.js';
import { ChunkedBytes } from '../../dist/electron/engine/transport/frame-bytes.js';
import { type Frame, Transport } from '../../dist/electron/engine/transport/transport.js';
import type { WorkerCounters } from '../../dist/electron/wire/protocol.js';
import { MiB, withTimeout } from './helpers.js';

const BIG = 12 * MiB;

/** Small lines, one BIG-byte line written in 64 KiB writes (each awaited), small lines, and a
 *  7-byte line without its newline. */
const SERVER = `
const small = (i) => JSON.stringify({ jsonrpc: '2.0', id: i, result: { s: 'é'.repeat(i) } }) + '\\n';
const head = '{"jsonrpc":"2.0","id":"big","result":{"text":"';
const tail = '"}}\\n';
const big = Buffer.alloc(${BIG} + 1, 'x');
big.write(head, 0);
big.write(tail, big.length - tail.length);
const parts = [small(1), small(2), small(3)];
for (let at = 0; at < big.length; at += 65536) parts.push(big.subarray(at, at + 65536));
parts.push(small(4), small(5), '{"part"');
let i = 0;
const next = () => (i < parts.length ? process.stdout.write(parts[i++], next) : process.exit(0));
next();
`;

function bigLine(): Buffer {
  const head = '{"jsonrpc":"2.0","id":"big","result":{"text":"';
  const tail = '"}}';
  const b = Buffer.alloc(BIG, 'x');
  b.write(head, 0);
  b.write(tail, b.length - tail.length);
  return b;
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let transport: Transport | null = null;
afterEach(async () => {
  await transport?.stop();
  transport = null;
});

function start(
  readChannels: 'socket' | 'pipe',
  readerMode: 'drain' | 'paused' | 'naive' = 'drain',
  server = SERVER,
) {
  transport = Transport.start({
    command: process.execPath,
    args: ['-e', server],
    env: {},
    maxFrameBytes: 32 * MiB,
    onOversize: 'discard',
    overloadPolicy: 'pause',
    spillMaxBytes: 64 * MiB,
    readerMode,
    readChannels,
  });
  return transport;
}

/** The next `n` counter ticks that pass `keep`. */
function counterTicks(
  t: Transport,
  n: number,
  keep: (c: WorkerCounters) => boolean,
  what: string,
): Promise<WorkerCounters[]> {
  const ticks: WorkerCounters[] = [];
  return withTimeout(
    new Promise((resolve) => {
      const onCounters = (c: WorkerCounters) => {
        if (keep(c)) ticks.push(c);
        if (ticks.length < n) return;
        t.off('counters', onCounters);
        resolve(ticks);
      };
      t.on('counters', onCounters);
    }),
    10_000,
    what,
  );
}

/** Every frame until stdout ends and the server exits, then the final counters. */
function collect(t: Transport, onFrame: (f: Frame) => void = () => {}) {
  const frames: Frame[] = [];
  let partial = -1;
  return withTimeout(
    new Promise<{ frames: Frame[]; partial: number; counters: WorkerCounters | null }>(
      (resolve, reject) => {
        let ended = false;
        let exited = false;
        const check = () => {
          if (ended && exited)
            void t.stop().then((r) => resolve({ frames, partial, counters: r.counters }));
        };
        t.on('frames', (batch) => {
          frames.push(...batch);
          for (const f of batch) onFrame(f);
          let bytes = 0;
          for (const f of batch) bytes += f.bytes;
          t.credit(batch.length, bytes);
        });
        t.on('stdout-end', (p) => {
          partial = p;
          ended = true;
          check();
        });
        t.on('exit', () => {
          exited = true;
          check();
        });
        t.on('fatal', (m) => reject(new Error(m)));
        t.on('spawn-error', (e) => reject(new Error(e.message)));
      },
    ),
    20_000,
    'stdout end and exit',
  );
}

describe.each(['socket', 'pipe'] as const)('stdout through the %s', (channel) => {
  it('gives every frame byte for byte, the long one whole, and the partial line at EOF', async () => {
    const { frames, partial, counters } = await collect(start(channel));
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 'big', 4, 5]);
    expect(frames.every((f) => f.kind === 'response')).toBe(true);
    const small = (i: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, result: { s: 'é'.repeat(i) } });
    for (const f of frames) {
      if (f.id === 'big') continue;
      expect(f.data.toString()).toBe(small(f.id as number));
    }
    const big = frames[3];
    expect(big.bytes).toBe(BIG);
    const data = big.data;
    const bytes = Buffer.isBuffer(data) ? data : data.toBuffer();
    expect(sha(bytes)).toBe(sha(bigLine()));
    // Offsets follow the stream: each frame starts where the one before ended (+ newline).
    for (let i = 1; i < frames.length; i++) {
      expect(frames[i].offset).toBe(frames[i - 1].offset + frames[i - 1].bytes + 1);
    }
    expect(partial).toBe(7);
    // The byte invariant: stdout bytes = Σ line bytes (with newline) + partial bytes at EOF.
    const lines = frames.reduce((n, f) => n + f.bytes + 1, 0);
    expect(counters?.stdoutBytes).toBe(lines + partial);
    expect(counters?.largestFrameBytes).toBe(BIG);
    // Only the channel reads a long line into shared slabs (the same memory on both sides).
    const chunks = Buffer.isBuffer(data) ? [data] : data.chunks;
    const shared = chunks.filter((c) => c.buffer instanceof SharedArrayBuffer).length;
    if (channel === 'socket') expect(shared).toBeGreaterThan(chunks.length / 2);
    else expect(shared).toBe(0);
  });

  it('reads nothing while paused, then everything once draining', async () => {
    const t = start(channel, 'paused');
    const spawned = await withTimeout(
      new Promise<number>((resolve) => t.once('spawned', resolve)),
      10_000,
      'spawned',
    );
    expect(spawned).toBeGreaterThan(0);
    // The server blocks once the socket's buffer is full; a few counter ticks must read nothing.
    const ticks = await counterTicks(t, 4, () => true, 'counters while paused');
    expect(ticks.map((c) => c.stdoutBytes)).toEqual([0, 0, 0, 0]);
    expect(ticks.at(-1)?.readingStdout).toBe(false);
    const all = collect(t);
    t.setReaderMode('drain');
    const { frames, partial } = await all;
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 'big', 4, 5]);
    expect(partial).toBe(7);
  });
});

/** 40 lines of 1.1 MiB, each of its own letter, written 64 KiB at a time. */
const LONG_LINES = 40;
const LONG_BYTES = Math.round(1.1 * MiB);
const longLine = (i: number): Buffer => {
  const head = `{"jsonrpc":"2.0","id":${i},"result":{"t":"`;
  const b = Buffer.alloc(LONG_BYTES, 0x41 + (i % 26));
  b.write(head, 0);
  b.write('"}}', LONG_BYTES - 3);
  return b;
};
const LONG_SERVER = `
const parts = [];
for (let i = 0; i < ${LONG_LINES}; i++) {
  const head = '{"jsonrpc":"2.0","id":' + i + ',"result":{"t":"';
  const b = Buffer.alloc(${LONG_BYTES} + 1, 0x41 + (i % 26));
  b.write(head, 0);
  b.write('"}}\\n', ${LONG_BYTES} - 3);
  for (let at = 0; at < b.length; at += 65536) parts.push(b.subarray(at, at + 65536));
}
let i = 0;
const next = () => (i < parts.length ? process.stdout.write(parts[i++], next) : process.exit(0));
next();
`;

describe.each(['socket', 'pipe'] as const)('long lines through the %s', (channel) => {
  it('the frame store holds 40 lines of 1.1 MiB at what they take, every byte intact', async () => {
    const store = new FrameStore(); // 256 MiB: room for all of them
    const seqs: number[] = [];
    const { frames } = await collect(start(channel, 'drain', LONG_SERVER), (f) => {
      seqs.push(store.add({ dir: 'in', t: f.t, offset: f.offset, kind: f.kind, id: f.id }, f).seq);
    });
    expect(frames).toHaveLength(LONG_LINES);
    const total = LONG_LINES * LONG_BYTES;
    // Each slab counted once, however many batches brought views of it: lines of 1.1 MiB put
    // ~0.1 MiB each in slabs, ~40 lines to a 4 MiB slab.
    expect(store.droppedBytes).toBe(0);
    expect(store.heldBytes).toBeGreaterThanOrEqual(total);
    expect(store.heldBytes).toBeLessThan(total + 2 * 4 * MiB);
    // Kept to the end, every line still reads as written (no read was placed over another).
    for (let i = 0; i < LONG_LINES; i++) {
      const page = store.page(seqs[i], 0, LONG_BYTES);
      expect(page?.data.length).toBe(LONG_BYTES);
      expect(sha(page?.data as Buffer)).toBe(sha(longLine(i)));
    }
  });

  it('holds an 8 MiB line written 16 KiB at a time whole, at about what it takes', async () => {
    // Small writes make small reads: hundreds of chunks of the same few slabs (or buffers).
    const server = `
const b = Buffer.alloc(${8 * MiB} + 1, 'z');
b.write('{"jsonrpc":"2.0","id":1,"result":{"t":"', 0);
b.write('"}}\\n', b.length - 4);
let at = 0;
const next = () => (at < b.length ? process.stdout.write(b.subarray(at, (at += 16384)), next) : process.exit(0));
next();
`;
    const store = new FrameStore(64 * MiB);
    let held: boolean | null = null;
    let chunks = 0;
    const { frames } = await collect(start(channel, 'drain', server), (f) => {
      held = store.add({ dir: 'in', t: f.t, offset: f.offset, kind: f.kind, id: f.id }, f).held;
      chunks = f.cut instanceof ChunkedBytes ? f.cut.chunks.length : 1;
    });
    expect(frames.map((f) => [f.kind, f.bytes])).toEqual([['response', 8 * MiB]]);
    expect(chunks).toBeGreaterThan(16); // (it did arrive in many pieces)
    expect(held).toBe(true);
    expect(store.heldBytes).toBeGreaterThanOrEqual(8 * MiB);
    expect(store.heldBytes).toBeLessThan(8 * MiB + 2 * 4 * MiB);
  });

  it('naive: reads no further while main holds frames, then everything once credited', async () => {
    const t = start(channel, 'naive');
    const held: Frame[] = [];
    t.on('frames', (batch) => held.push(...batch)); // no credit back yet
    const ticks = await counterTicks(
      t,
      3,
      (c) => c.stdoutBytes > 0,
      'counters while main holds frames',
    );
    // One read, and no more while its frames are out (a 64 KiB read of the small lines).
    expect(ticks.every((c) => c.stdoutBytes === ticks[0].stdoutBytes)).toBe(true);
    expect(ticks[0].stdoutBytes).toBeLessThanOrEqual(64 * 1024);
    t.removeAllListeners('frames');
    const all = collect(t);
    t.credit(
      held.length,
      held.reduce((n, f) => n + f.bytes, 0),
    );
    const { frames, partial } = await all;
    expect([...held, ...frames].map((f) => f.id)).toEqual([1, 2, 3, 'big', 4, 5]);
    expect(partial).toBe(7);
  });
});

describe('a spawn that throws at once (an argument with a NUL byte)', () => {
  it.each(['socket', 'pipe'] as const)(
    'through the %s: spawn-error, then stopped',
    async (channel) => {
      transport = Transport.start({
        command: process.execPath,
        args: ['a\0b'],
        env: {},
        maxFrameBytes: MiB,
        onOversize: 'discard',
        overloadPolicy: 'pause',
        spillMaxBytes: MiB,
        readerMode: 'drain',
        readChannels: channel,
      });
      const t = transport;
      const events: string[] = [];
      t.on('fatal', (m) => events.push(`fatal: ${m}`));
      t.on('spawn-error', (e) => events.push(`spawn-error ${e.code}`));
      const stopped = await withTimeout(
        new Promise((resolve) => t.once('stopped', resolve)),
        10_000,
        'stopped',
      );
      expect(stopped).toBeTruthy();
      expect(events).toEqual([expect.stringMatching(/^spawn-error /)]);
    },
  );
});
