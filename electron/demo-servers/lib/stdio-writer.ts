/**
 * Writing big payloads to a pipe the polite way: fixed-size chunks, and after any write()
 * that returns false, wait for 'drain' before the next one. This is what makes pipe
 * backpressure visible (the server stays parked here while the host does not read) instead
 * of growing Node's internal write buffer without bound.
 */

import { once } from 'node:events';
import type { Writable } from 'node:stream';

export const DEFAULT_CHUNK_BYTES = 16 * 1024;

export interface ChunkedWriteOptions {
  chunkBytes?: number;
  /** Called each time write() returns false (before waiting for 'drain'). */
  onBackpressure?: () => void;
  /** Stops between chunks (the rest is never written). */
  signal?: AbortSignal;
}

/** Writes `data` in chunks, awaiting 'drain' whenever the stream asks us to wait. */
export async function writeChunked(
  stream: Writable,
  data: Buffer | string,
  options: ChunkedWriteOptions = {},
): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
    if (options.signal?.aborted) return;
    const ok = stream.write(bytes.subarray(offset, offset + chunkBytes));
    if (!ok) {
      options.onBackpressure?.();
      await waitForDrain(stream);
    }
  }
}

/**
 * Writes `total` bytes made of `pattern` repeated (cut at `total`), chunk by chunk as
 * writeChunked does, without ever holding them all: any size, a gigabyte or more.
 */
export async function writeRepeated(
  stream: Writable,
  pattern: string,
  total: number,
  options: ChunkedWriteOptions = {},
): Promise<void> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const unit = Buffer.from(pattern, 'utf8');
  if (unit.length === 0 || total <= 0) return;
  // One chunk's worth of the pattern, starting at each offset of it: chunk k begins at
  // (k * chunkBytes) % unit.length, so a chunk is a view of this buffer.
  const copies = Math.ceil(chunkBytes / unit.length) + 1;
  const run = Buffer.alloc(unit.length * copies);
  for (let i = 0; i < copies; i++) unit.copy(run, i * unit.length);
  for (let offset = 0; offset < total; offset += chunkBytes) {
    if (options.signal?.aborted) return;
    const start = offset % unit.length;
    const n = Math.min(chunkBytes, total - offset);
    const ok = stream.write(run.subarray(start, start + n));
    if (!ok) {
      options.onBackpressure?.();
      await waitForDrain(stream);
    }
  }
}

/** Resolves on 'drain'; rejects if the stream errors or closes first (host went away). */
export async function waitForDrain(stream: Writable): Promise<void> {
  const ac = new AbortController();
  try {
    await Promise.race([
      once(stream, 'drain', { signal: ac.signal }),
      once(stream, 'close', { signal: ac.signal }).then(() => {
        throw new Error('stream closed while waiting for drain');
      }),
    ]);
  } finally {
    ac.abort();
  }
}

/** Writes one line to stderr (logs belong there, never on stdout). */
export function logLine(id: string, message: string): void {
  process.stderr.write(`[${id}] ${message}\n`);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
