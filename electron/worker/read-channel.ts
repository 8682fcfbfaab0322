/**
 * Read channels: the sockets the server writes its stdout and its stderr to, and the buffers
 * each read goes into.
 *
 * Owns: the listening socket and its private directory (only until the connection is made), the
 * read buffers. Fed by: the transport worker (`openReadChannel` before the spawn); the stdout
 * reader tells `ReadBuffers` how long the line still arriving is. Listens: nothing.
 *
 * Node's pipes to a child are Unix stream sockets (libuv makes them with socketpair), read
 * through Node's streams: a fresh 64 KiB buffer per read. A server writing one 64 MiB frame
 * then has a thousand of them alive until the frame ends, and that alone costs a quarter more
 * than a drain that frees each read (the bench's `raw-keep`); a server flooding stderr has the
 * reader allocate as fast as it logs, memory the allocator keeps after the session. A socket we
 * connect ourselves can be read with net's `onread` into buffers we choose, so on Unix the
 * server's stdout and stderr are each one end of such a socket, made by a listener that lives
 * for one connection in a directory only we can enter, and that takes only the connection
 * presenting a random token. (The server sees what it saw before: a Unix stream socket.)
 * Windows keeps Node's pipes.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A read while no long line is arriving: into a buffer of this size, its own once filled. */
const READ_BYTES = 64 * 1024;
/** A line still arriving past this many bytes is read into shared slabs (see ReadBuffers). */
export const SLAB_AFTER = 1024 * 1024;
const SLAB_BYTES = 4 * 1024 * 1024;
/** A read into a slab takes at most this much (fewer, larger reads: measured best at 256 KiB). */
const SLAB_READ = 256 * 1024;
const TOKEN_BYTES = 32;
/** A socket path longer than this would be cut short by the system (sun_path: 104 bytes on
 *  macOS, 108 on Linux, the NUL included) and land outside our directory: not used. */
const MAX_SOCKET_PATH = 103;
/** How long the connection may take before the channel gives up (and Node's pipes are used). */
const CONNECT_TIMEOUT_MS = 2000;

/** Where the reads of a channel go: `next` gives the buffer of the next read, `took` the
 *  chunk that read filled. */
export interface ChannelBuffers {
  next(): Uint8Array;
  took(n: number): Buffer;
}

/**
 * stderr's reads: always into the same buffer, and the chunk is a view of it, valid until the
 * next read (the stderr batcher copies it into its ring at once). Nothing is allocated per read.
 */
export class ScratchBuffer implements ChannelBuffers {
  private readonly buf = Buffer.allocUnsafeSlow(READ_BYTES);

  next(): Uint8Array {
    return this.buf;
  }

  took(n: number): Buffer {
    return this.buf.subarray(0, n);
  }
}

/**
 * stdout's reads. Small lines: a 64 KiB buffer, handed on whole when a read fills it
 * (it then belongs to the chunk, and is transferred to main with it), else the read is copied
 * out at its size and the buffer reused. A line past SLAB_AFTER: reads go one after another
 * into a 4 MiB SharedArrayBuffer, handed on as views — nothing is allocated per read and
 * nothing is transferred (main sees the same memory), so a 64 MiB frame is 16 allocations
 * instead of ~1,000. A slab is kept for the next long line until full; it lives as long as a
 * view of it does (main's frame store counts it whole).
 */
export class ReadBuffers implements ChannelBuffers {
  private small: Buffer | null = null;
  private slab: Buffer | null = null;
  private used = 0;
  private inSlab = false;
  /** Slabs made so far (tests, counters). */
  slabs = 0;

  /** `lineBytes`: bytes of the line still arriving (0 between lines). */
  constructor(private readonly lineBytes: () => number) {}

  /** The buffer the next read goes into. */
  next(): Uint8Array {
    if (this.lineBytes() >= SLAB_AFTER) {
      if (this.slab === null || this.used === SLAB_BYTES) {
        this.slab = Buffer.from(new SharedArrayBuffer(SLAB_BYTES));
        this.used = 0;
        this.slabs += 1;
      }
      this.inSlab = true;
      return this.slab.subarray(this.used, Math.min(SLAB_BYTES, this.used + SLAB_READ));
    }
    this.inSlab = false;
    this.small ??= Buffer.allocUnsafeSlow(READ_BYTES);
    return this.small;
  }

  /** The chunk the last read filled with `n` bytes (from the buffer `next` gave). */
  took(n: number): Buffer {
    if (this.inSlab && this.slab !== null) {
      const chunk = this.slab.subarray(this.used, this.used + n);
      this.used += n;
      return chunk;
    }
    const buf = this.small ?? Buffer.alloc(0);
    if (n === buf.length) {
      this.small = null;
      return buf;
    }
    const chunk = Buffer.allocUnsafeSlow(n);
    buf.copy(chunk, 0, 0, n);
    return chunk;
  }
}

export interface ReadChannel {
  /** Our end, read with `onread` into `buffers`; it ends when every holder of the other closed. */
  reader: net.Socket;
  /** The end the server gets as its stdout or stderr (ours to close once the child has it). */
  serverEnd: net.Socket;
}

/**
 * The first connection to `server` whose first bytes are `token` (`taken`); every other
 * connection is dropped, and `dropOthers` drops those still waiting to show theirs. The one taken
 * is paused (its reads belong to whoever gets the socket).
 */
export function takeConnection(
  server: net.Server,
  token: Buffer,
): { taken: Promise<net.Socket>; dropOthers(): void } {
  const waiting = new Set<net.Socket>();
  let took = false;
  const taken = new Promise<net.Socket>((resolve) => {
    server.on('connection', (socket) => {
      waiting.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => waiting.delete(socket));
      let got = Buffer.alloc(0);
      const onData = (data: Buffer): void => {
        got = Buffer.concat([got, data]);
        if (got.length < token.length) return;
        socket.off('data', onData);
        socket.pause();
        waiting.delete(socket);
        // (One connection only: a second showing the token is dropped like any other.)
        if (!took && got.length === token.length && timingSafeEqual(got, token)) {
          took = true;
          resolve(socket);
        } else socket.destroy();
      };
      socket.on('data', onData);
    });
  });
  return {
    taken,
    dropOthers: () => {
      for (const socket of waiting) socket.destroy();
      waiting.clear();
    },
  };
}

/**
 * Opens the channel, or resolves null where it cannot be made (Windows, a temporary directory
 * that refuses us, a path too long for a socket, a timeout): the caller then uses Node's pipes,
 * as before. `onChunk` gets each read (see ReadBuffers).
 */
export async function openReadChannel(
  name: 'stdout' | 'stderr',
  buffers: ChannelBuffers,
  onChunk: (chunk: Buffer) => void,
): Promise<ReadChannel | null> {
  if (process.platform === 'win32') return null;
  // mkdtemp adds 6 characters; the socket is `name` in it.
  const prefix = join(tmpdir(), 'pipescope-');
  if (Buffer.byteLength(prefix) + 6 + 1 + name.length > MAX_SOCKET_PATH) return null;
  let dir: string;
  try {
    dir = mkdtempSync(prefix); // mode 0700: only we can connect
  } catch {
    return null;
  }
  const path = join(dir, name);
  const token = randomBytes(TOKEN_BYTES);
  const server = net.createServer();
  // (Assigned in a callback: typed so, not narrowed to null.)
  let reader = null as net.Socket | null;
  let timer: NodeJS.Timeout | undefined;
  const connection = takeConnection(server, token);
  try {
    const serverEnd = await new Promise<net.Socket>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no connection')), CONNECT_TIMEOUT_MS);
      server.on('error', reject);
      connection.taken.then(resolve, reject);
      server.listen(path, () => {
        reader = net.connect({
          path,
          onread: {
            buffer: () => buffers.next(),
            callback: (n: number) => {
              onChunk(buffers.took(n));
              return true; // (false would pause; pausing is the reader mode's, through pause())
            },
          },
        });
        reader.on('error', reject);
        reader.write(token);
      });
    });
    if (reader === null) throw new Error('no reader');
    return { reader, serverEnd };
  } catch {
    reader?.destroy();
    return null;
  } finally {
    clearTimeout(timer);
    connection.dropOthers(); // a connection that never showed a token (or came too late)
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
