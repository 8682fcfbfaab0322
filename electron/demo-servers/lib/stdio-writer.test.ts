import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeRepeated } from './stdio-writer.js';

function sink(keep: boolean) {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const stream = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (keep) chunks.push(Buffer.from(chunk));
      setImmediate(cb); // asynchronous, so writes fill the buffer and 'drain' is awaited
    },
  });
  /** Everything written has reached the sink (writes may still sit in the stream's buffer). */
  const flushed = () => new Promise<void>((resolve) => stream.end(resolve));
  return {
    stream,
    flushed,
    text: () => Buffer.concat(chunks).toString('utf8'),
    bytes: () => bytes,
  };
}

describe('writeRepeated', () => {
  it('writes exactly `total` bytes of the pattern, cut anywhere, in chunks of any size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }).filter((p) => /^[\x20-\x7e]+$/.test(p)),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 700 }),
        async (pattern, total, chunkBytes) => {
          const s = sink(true);
          await writeRepeated(s.stream, pattern, total, { chunkBytes });
          await s.flushed();
          expect(s.text()).toBe(pattern.repeat(Math.ceil(total / pattern.length)).slice(0, total));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes 1.5 GiB without holding it (the stderr-flood demo died at 1 GB building one string)', async () => {
    const s = sink(false);
    const before = process.memoryUsage().arrayBuffers;
    const total = 1.5 * 1024 ** 3;
    await writeRepeated(s.stream, 'a log line\n', total, { chunkBytes: 1024 * 1024 });
    await s.flushed();
    expect(s.bytes()).toBe(total);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });
});
