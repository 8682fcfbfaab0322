/**
 * A 1 GiB trace opens within bounded memory (issue 5): the reader streams the file in fixed
 * chunks and keeps a columnar index, never the frames' text. Generates the file quickly from
 * a repeated buffer, measures peak RSS growth and time while opening and summarising, prints
 * them, and deletes the file.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TraceReader } from '../../dist/electron/engine/trace/reader.js';
import { summarizeTrace } from '../../dist/electron/engine/trace/summary.js';
import { HEADER } from '../fixtures/trace-fixtures.js';

const MiB = 1024 * 1024;
const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ~1 GiB: 1000 frames of 1 MiB text, and 100 small events after each (100k small lines). */
function generate(file: string): { bigFrames: number; lines: number } {
  const fd = openSync(file, 'w');
  const text = Buffer.alloc(MiB, 'x');
  const tail = Buffer.from('"}\n');
  let lines = 0;
  let t = 0;
  writeSync(fd, `${JSON.stringify(HEADER)}\n`);
  const small: string[] = [];
  const big = 1000;
  for (let i = 0; i < big; i++) {
    t += 1;
    const head = `{"t":${t},"type":"frame","dir":"in","seq":${i * 101},"bytes":${MiB},"kind":"response","offset":${i * MiB},"id":${i},"text":"`;
    writeSync(fd, head);
    writeSync(fd, text);
    writeSync(fd, tail);
    lines += 1;
    small.length = 0;
    for (let k = 0; k < 100; k++) {
      t += 0.01;
      small.push(
        k % 10 === 0
          ? `{"t":${t},"type":"metrics","metrics":{"stdoutBytes":${i * MiB},"stdoutRate":${MiB},"dispatcherDepth":${k}}}`
          : `{"t":${t},"type":"frame","dir":"out","seq":${i * 101 + k + 1},"bytes":46,"kind":"notification","offset":null,"method":"notifications/progress","text":"{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/progress\\"}"}`,
      );
    }
    writeSync(fd, `${small.join('\n')}\n`);
    lines += small.length;
  }
  closeSync(fd);
  return { bigFrames: big, lines };
}

describe('large traces', () => {
  it('opens a 1 GiB trace with RSS growth under 200 MiB', async () => {
    const file = path.join(dir, 'big.jsonl');
    const g0 = performance.now();
    const { lines } = generate(file);
    const genMs = performance.now() - g0;
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(1000 * MiB);

    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const o0 = performance.now();
    const reader = await TraceReader.open(file);
    const openMs = performance.now() - o0;
    try {
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(reader.count).toBe(lines);
      expect(reader.info.badLines).toBe(0);
      const s0 = performance.now();
      const sum = await summarizeTrace(reader);
      const summaryMs = performance.now() - s0;
      expect(sum.metrics).toHaveLength(10_000);
      expect(sum.frames.in).toBe(1000);
      expect(sum.frames.out).toBe(90_000);
      // A frame's text is read on demand, by offset.
      const i = reader.count - 101;
      expect(reader.bytes(i)).toBe(MiB);
      const meta = await reader.frameMeta(i);
      expect(meta?.text).toBeUndefined();
      const e = await reader.read(i);
      expect(e?.type === 'frame' && e.text?.length).toBe(MiB);
      peak = Math.max(peak, process.memoryUsage().rss);
      clearInterval(sampler);
      const growth = (peak - rss0) / MiB;
      console.log(
        `[trace-large] ${(size / MiB).toFixed(0)} MiB, ${lines} lines: generated in ` +
          `${genMs.toFixed(0)} ms; opened in ${openMs.toFixed(0)} ms ` +
          `(scan ${reader.info.scanMs.toFixed(0)} ms), summarised in ${summaryMs.toFixed(0)} ms; ` +
          `peak RSS growth ${growth.toFixed(1)} MiB (rss before ${(rss0 / MiB).toFixed(0)} MiB)`,
      );
      expect(growth).toBeLessThan(200);
    } finally {
      clearInterval(sampler);
      await reader.close();
      rmSync(file, { force: true });
    }
  }, 60_000);
});
