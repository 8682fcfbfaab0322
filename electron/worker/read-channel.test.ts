import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  openReadChannel,
  ReadBuffers,
  type ReadChannel,
  SLAB_AFTER,
  takeConnection,
} from './read-channel.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Simulates `n` bytes read into the buffer `next` gives (the kernel's part). */
function read(b: ReadBuffers, want: number, fill = 0x61): Buffer {
  const target = b.next();
  const n = Math.min(want, target.length); // the kernel fills at most what it is offered
  target.fill(fill, 0, n);
  return b.took(n);
}

describe('ReadBuffers', () => {
  it('hands a filled 64 KiB buffer on whole, and copies a short read out at its size', () => {
    const b = new ReadBuffers(() => 0);
    const first = b.next();
    expect(first.length).toBe(64 * KiB);
    const full = read(b, 64 * KiB);
    expect(full.buffer).toBe(first.buffer); // handed on: the chunk owns its ArrayBuffer
    expect(full.byteOffset).toBe(0);
    expect(full.buffer.byteLength).toBe(64 * KiB);
    const second = b.next();
    expect(second.buffer).not.toBe(first.buffer); // a fresh one for the next read
    const short = read(b, 200, 0x62);
    expect(short.length).toBe(200);
    expect(short.buffer.byteLength).toBe(200); // its own memory, transferable as it is
    expect(short.buffer).not.toBe(second.buffer);
    expect(short.every((x) => x === 0x62)).toBe(true);
    expect(b.next().buffer).toBe(second.buffer); // reused: nothing of it was handed on
    expect(b.slabs).toBe(0);
  });

  it('reads a long line into shared slabs, one read after another, and goes back after it', () => {
    let line = 0;
    const b = new ReadBuffers(() => line);
    line = SLAB_AFTER; // the line still arriving is this long
    const chunks: Buffer[] = [];
    for (let i = 0; i < 20; i++) chunks.push(read(b, 256 * KiB - 1, i)); // ~5 MiB: two slabs
    expect(b.slabs).toBe(2);
    // The 17th read was offered only the 16 bytes left in the first slab.
    expect(chunks[16].length).toBe(16);
    expect(chunks[16].byteOffset + 16).toBe(4 * MiB);
    for (const c of chunks) expect(c.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Contiguous within a slab, each read where the one before ended; never across two slabs.
    for (let i = 1; i < chunks.length; i++) {
      const [p, c] = [chunks[i - 1], chunks[i]];
      if (c.buffer === p.buffer) expect(c.byteOffset).toBe(p.byteOffset + p.length);
      else expect(c.byteOffset).toBe(0);
      expect(c.byteOffset + c.length).toBeLessThanOrEqual(4 * MiB);
    }
    // Earlier reads keep their bytes (a later read never writes over them).
    chunks.forEach((c, i) => {
      expect(c[0]).toBe(i);
      expect(c[c.length - 1]).toBe(i);
    });
    // The line ended: small reads again; the next long line goes on in the same slab.
    line = 0;
    expect(read(b, 100).buffer).toBeInstanceOf(ArrayBuffer);
    line = SLAB_AFTER + 1;
    const more = read(b, 1000, 0xee);
    expect(more.buffer).toBe(chunks.at(-1)?.buffer);
    const last = chunks.at(-1) as Buffer;
    expect(more.byteOffset).toBe(last.byteOffset + last.length); // after the bytes handed on
    expect(b.slabs).toBe(2);
    // Nothing handed on was written over (main may still be reading any of it).
    chunks.forEach((c, i) => {
      expect(c.every((x) => x === i)).toBe(true);
    });
  });
});

describe('takeConnection', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('takes the connection that presents the token and drops the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipescope-test-'));
    dirs.push(dir);
    const path = join(dir, 's');
    const server = net.createServer();
    const token = randomBytes(32);
    const connection = takeConnection(server, token);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const closed = (s: net.Socket) => new Promise<void>((resolve) => s.once('close', resolve));
    // A client that shows part of the token and then nothing: never taken; dropped at the end.
    const silent = net.connect(path);
    silent.on('error', () => {});
    silent.write(token.subarray(0, 10));
    // Wrong bytes, and the token with more after it: dropped at once.
    const wrong = net.connect(path);
    wrong.on('error', () => {});
    wrong.write(randomBytes(32));
    const longer = net.connect(path);
    longer.on('error', () => {});
    longer.write(Buffer.concat([token, Buffer.from('x')]));
    await Promise.all([closed(wrong), closed(longer)]);
    const ours = net.connect(path);
    ours.write(token.subarray(0, 10));
    ours.write(token.subarray(10)); // in two pieces: still the token
    const socket = await connection.taken;
    // A second connection showing the token is not taken: one connection only.
    const again = net.connect(path);
    again.on('error', () => {});
    again.write(token);
    await closed(again);
    expect(silent.destroyed).toBe(false);
    const silentClosed = closed(silent);
    connection.dropOthers();
    await silentClosed; // ended from our side: its socket was destroyed
    socket.write('hello');
    const got = await new Promise<string>((resolve) =>
      ours.once('data', (d) => resolve(String(d))),
    );
    expect(got).toBe('hello');
    ours.destroy();
    socket.destroy();
    server.close();
  });
});

describe('openReadChannel', () => {
  let channel: ReadChannel | null = null;
  const envTmp = process.env.TMPDIR;
  const dirs: string[] = [];
  /** A fresh directory for TMPDIR (removed after the test). */
  const freshTmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'pipescope-test-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    channel?.reader.destroy();
    channel = null;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    if (envTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = envTmp;
  });

  it.skipIf(process.platform === 'win32')(
    'gives a child a socket as stdout: every byte arrives, then EOF, and no file is left',
    async () => {
      const base = freshTmp();
      process.env.TMPDIR = base;
      const received: Buffer[] = [];
      let line = 0;
      const buffers = new ReadBuffers(() => line);
      channel = await openReadChannel('stdout', buffers, (c) => {
        received.push(Buffer.from(c));
        line += c.length; // one long line: the reads move to slabs past SLAB_AFTER
      });
      expect(channel).not.toBeNull();
      expect(readdirSync(base)).toEqual([]); // the listener and its directory are gone
      const c = channel as ReadChannel;
      const child = spawn(
        process.execPath,
        ['-e', "process.stdout.write(Buffer.alloc(6 * 1024 * 1024, 'z'), () => process.exit(0))"],
        { stdio: ['ignore', c.serverEnd, 'inherit'] },
      );
      c.serverEnd.destroy();
      await new Promise<void>((resolve) => c.reader.once('end', resolve));
      await new Promise((resolve) =>
        child.exitCode === null ? child.once('exit', resolve) : resolve(0),
      );
      const all = Buffer.concat(received);
      expect(all.length).toBe(6 * MiB);
      expect(all.every((x) => x === 0x7a)).toBe(true);
      expect(buffers.slabs).toBeGreaterThan(0);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'resolves null where the socket cannot be made (a path too long): Node pipes are used',
    async () => {
      const base = freshTmp();
      const long = join(base, 'd'.repeat(120));
      mkdirSync(long);
      process.env.TMPDIR = long;
      channel = await openReadChannel('stdout', new ReadBuffers(() => 0), () => {});
      expect(channel).toBeNull();
      expect(readdirSync(long)).toEqual([]);
      expect(readdirSync(base)).toEqual(['d'.repeat(120)]); // nothing cut short landed here
    },
  );
});
