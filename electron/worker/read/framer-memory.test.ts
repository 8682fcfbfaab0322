import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createFramer, type OversizeInfo } from './framer.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const b = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Memory once the GC has run and freed backing stores (freed off-thread, so poll a little). */
async function settledMemory(gc: () => void): Promise<NodeJS.MemoryUsage> {
  let last = process.memoryUsage();
  for (let i = 0; i < 10; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = process.memoryUsage();
    if (now.arrayBuffers >= last.arrayBuffers && i > 0) return now;
    last = now;
  }
  return last;
}

describe('createFramer: memory', () => {
  it('keeps memory bounded on a 256 MiB unterminated line and resyncs at the next \\n', async () => {
    // A real GC makes the retention check exact instead of a guess about V8 heuristics.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const total = 256 * MiB;
    const chunkSize = 64 * KiB;
    const limit = MiB;
    const sampleEvery = 16 * MiB;
    const source = Buffer.alloc(chunkSize, 'a'); // ONE chunk of content, reused
    const frames: string[] = [];
    const oversize: OversizeInfo[] = [];
    const framer = createFramer({
      maxFrameBytes: limit,
      onFrame: (f) => frames.push(f.toString()),
      onOversize: (info) => oversize.push(info),
    });

    const base = await settledMemory(gc);
    let peakArrayBuffers = 0;
    let peakRss = 0;
    const started = performance.now();
    for (let pushed = 0; pushed < total; pushed += chunkSize) {
      // A fresh copy per push, as each pipe read is: were the framer to keep discarded
      // chunks, arrayBuffers would grow by the whole 256 MiB.
      framer.push(Buffer.from(source));
      if (pushed % sampleEvery === 0) {
        gc();
        const m = process.memoryUsage();
        peakArrayBuffers = Math.max(peakArrayBuffers, m.arrayBuffers - base.arrayBuffers);
        peakRss = Math.max(peakRss, m.rss - base.rss);
      }
    }
    const elapsed = performance.now() - started;
    const after = await settledMemory(gc);

    expect(framer.stats.pendingBytes).toBe(total);
    // What is still held is at most the limit plus one chunk (here: nothing, it discarded).
    expect(after.arrayBuffers - base.arrayBuffers).toBeLessThan(limit + 2 * chunkSize);
    // Sampled right after a GC, which may leave the last interval's dead chunks unswept.
    expect(peakArrayBuffers).toBeLessThan(limit + 2 * sampleEvery);
    expect(Math.max(peakRss, after.rss - base.rss)).toBeLessThan(total / 8);
    expect(elapsed).toBeLessThan(3000);
    expect(oversize.map((e) => [e.phase, e.offset])).toEqual([['start', 0]]);

    framer.push(b('\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    expect(frames).toEqual(['{"jsonrpc":"2.0","id":2,"result":{}}']);
    expect(oversize.map((e) => [e.phase, e.offset, e.bytes])).toEqual([
      // Noticed at the first chunk that took the pending bytes past limit + 1.
      ['start', 0, limit + chunkSize],
      ['end', 0, total],
    ]);
    expect(framer.stats.oversizeFrames).toBe(1);
    expect(framer.end()).toBe(0);
    expect(framer.stats.bytesIn).toBe(framer.stats.lineBytes);
  }, 10_000);
});
