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
import { MAX_METRICS_SAMPLES, summarizeTrace } from '../../dist/electron/engine/trace/summary.js';
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
      // 10,000 samples, every k-th kept for the charts (and the last).
      const stride = Math.ceil(10_000 / MAX_METRICS_SAMPLES);
      expect(sum.metrics).toHaveLength(Math.ceil(10_000 / stride));
      expect(sum.metrics.at(-1)?.metrics.stdoutBytes).toBe(999 * MiB);
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

  it('reports on 1,000,000 small events in well under 10 s, in bounded memory (was ~40 µs an event)', async () => {
    const file = path.join(dir, 'many.jsonl');
    const fd = openSync(file, 'w');
    writeSync(fd, `${JSON.stringify(HEADER)}\n`);
    const rec = (id: number, status: string) =>
      `{"id":${id},"method":"tools/call","status":"${status}","sentAt":1,"latencyMs":null,"responseBytes":null,"requestBytes":50,"cancelledAt":null,"cancelReason":null,"error":null,"progressToken":null,"progressCount":0,"lastProgress":null,"replayOf":null}`;
    const n = 1_000_000;
    let batch: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = i / 100;
      const k = i % 10;
      batch.push(
        k < 6
          ? `{"t":${t},"type":"frame","dir":"in","seq":${i},"bytes":200,"kind":"notification","offset":${i * 201},"method":"notifications/message","truncated":true,"sha256":null}`
          : k < 8
            ? `{"t":${t},"type":"request","record":${rec(i % 1000, k === 6 ? 'pending' : 'completed')}}`
            : k === 8
              ? `{"t":${t},"type":"stderr","bytes":12,"text":"log line ${i}\\n"}`
              : `{"t":${t},"type":"metrics","metrics":{"stdoutBytes":${i * 201},"stdoutRate":1000,"dispatcherDepth":0}}`,
      );
      if (batch.length === 10_000) {
        writeSync(fd, `${batch.join('\n')}\n`);
        batch = [];
      }
    }
    closeSync(fd);
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const t0 = performance.now();
    const reader = await TraceReader.open(file);
    try {
      const sum = await summarizeTrace(reader);
      const ms = performance.now() - t0;
      clearInterval(sampler);
      console.log(
        `[trace-large] ${(n / 1e6).toFixed(1)} M events, ${Math.round(statSync(file).size / MiB)} MiB: report in ${Math.round(ms)} ms, RSS growth ${Math.round((peak - rss0) / MiB)} MiB`,
      );
      expect(reader.count).toBe(n);
      expect(sum.requests).toHaveLength(200); // ids (i % 1000) of lines i = 6, 7 (mod 10)
      expect(sum.metrics.length).toBeLessThanOrEqual(MAX_METRICS_SAMPLES + 1);
      expect(sum.stderrTail.at(-1)).toBe(`log line ${n - 2}`);
      expect(ms).toBeLessThan(10_000);
      expect(peak - rss0).toBeLessThan(400 * MiB);
    } finally {
      clearInterval(sampler);
      await reader.close();
    }
  }, 60_000);
});
