import { describe, expect, it } from 'vitest';
import { ChunkReader } from '../engine/frame-bytes.js';
import { decodeFrames, type InFrame } from '../engine/in-frame.js';
import type { PostedBatch } from './outbox.js';
import { WARM_LINES, warmLine, warmTraffic, warmUp } from './warm-up.js';

/** Runs the warm-up; the frames main would decode from its batches. */
function run(creditFrames = 8192, creditBytes = 32 * 1024 * 1024) {
  const batches: PostedBatch[] = [];
  const made = warmUp({ creditFrames, creditBytes, post: (b) => batches.push(b) });
  const frames: InFrame[] = [];
  for (const b of batches) frames.push(...decodeFrames(b.metas, new ChunkReader(b.buffers)));
  return { made, batches, frames };
}

describe('warm-up of the read path', () => {
  it('is JSON-RPC of every kind a server sends, of varied lengths', () => {
    const kinds = new Set<string>();
    const lengths = new Set<number>();
    for (let i = 0; i < 64; i++) {
      const msg = JSON.parse(warmLine(i));
      expect(msg.jsonrpc).toBe('2.0');
      kinds.add('method' in msg ? ('id' in msg ? 'request' : 'notification') : 'response');
      lengths.add(warmLine(i).length);
    }
    expect(kinds).toEqual(new Set(['request', 'notification', 'response']));
    expect(lengths.size).toBeGreaterThan(30);
  });

  it('runs every line through the reader, into batches main decodes exactly', () => {
    const { made, batches, frames } = run();
    expect(made).toBe(WARM_LINES);
    expect(batches.length).toBeGreaterThan(1);
    expect(frames).toHaveLength(WARM_LINES);
    const counts: Record<string, number> = {};
    let offset = 0;
    frames.forEach((f, i) => {
      counts[f.kind] = (counts[f.kind] ?? 0) + 1;
      const line = warmLine(i);
      expect(f.offset).toBe(offset);
      expect(f.data.toString()).toBe(line);
      offset += Buffer.byteLength(line) + 1;
    });
    expect(offset).toBe(warmTraffic().length);
    // Classified as a server's traffic is: nothing here is a parse error.
    expect(counts).toEqual({
      response: (WARM_LINES / 8) * 5,
      notification: (WARM_LINES / 8) * 2,
      request: WARM_LINES / 8,
    });
    // Progress notifications carry their fields, errors theirs: main's extras are warmed too.
    expect(frames[1]).toMatchObject({ method: 'notifications/progress', progress: 1 });
    expect(frames[6].error).toMatchObject({ code: -32602 });
    expect(frames[5].id).toBe('w-5');
  });

  it('hands over pipe-read-sized chunks that are its own to transfer', () => {
    const { batches } = run();
    const buffers = batches.flatMap((b) => b.buffers);
    expect(new Set(buffers).size).toBe(buffers.length);
    for (const b of buffers) expect(b.byteLength).toBeLessThanOrEqual(64 * 1024);
    for (const b of batches) for (const buf of b.buffers) expect(b.transfer).toContain(buf);
  });

  it('posts no more than the session credits allow', () => {
    const { made, frames } = run(400, 32 * 1024 * 1024);
    expect(made).toBeLessThanOrEqual(400);
    expect(made).toBeGreaterThan(0);
    expect(frames).toHaveLength(made);
  });
});
