/** Trace reader: the index, on-demand reads, other writers' key order, damaged files. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEADER, writeTrace } from '../../../test/fixtures/trace-fixtures.js';
import { TraceReadError, TraceReader } from './reader.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, lines: (string | object)[], tail = '\n'): string {
  return writeTrace(path.join(dir, name), lines, tail);
}

const big = 'x'.repeat(3 * 1024 * 1024);

describe('TraceReader', () => {
  it('indexes type, t, size, direction and truncation from each line', async () => {
    const file = write('basic.jsonl', [
      HEADER,
      { t: 1, type: 'state', state: 'running', pid: 7 },
      {
        t: 2.5,
        type: 'frame',
        dir: 'out',
        seq: 1,
        bytes: 10,
        kind: 'request',
        offset: null,
        id: 1,
        method: 'initialize',
        text: '{"id":1}',
      },
      {
        t: 3,
        type: 'frame',
        dir: 'in',
        seq: 2,
        bytes: big.length,
        kind: 'response',
        offset: 0,
        id: 1,
        text: big,
      },
      {
        t: 4,
        type: 'frame',
        dir: 'in',
        seq: 3,
        bytes: 99,
        kind: 'response',
        offset: 5,
        id: 2,
        truncated: true,
        sha256: 'ab',
      },
      { t: 5, type: 'stderr', bytes: 3, text: '"dir":"out" "truncated":true' },
      { t: 6, type: 'novel-event', x: 1 },
      {
        t: 7,
        type: 'end',
        report: { server: {}, metrics: {}, requests: [], recovery: null, findings: [] },
        recovery: null,
        startError: null,
        recording: {},
      },
    ]);
    const r = await TraceReader.open(file);
    try {
      expect(r.header.server.command).toBe('node');
      expect(r.count).toBe(7);
      expect([...Array(r.count).keys()].map((i) => r.type(i))).toEqual([
        'state',
        'frame',
        'frame',
        'frame',
        'stderr',
        null,
        'end',
      ]);
      expect(r.t(1)).toBe(2.5);
      expect(r.bytes(2)).toBe(big.length);
      expect([r.frameDir(1), r.frameDir(2), r.frameDir(3)]).toEqual(['out', 'in', 'in']);
      expect([r.isTruncated(2), r.isTruncated(3), r.isTruncated(4)]).toEqual([false, true, false]);
      expect(r.lastIndexOf('end')).toBe(6);
      const meta = await r.frameMeta(2);
      expect(meta).toMatchObject({ seq: 2, bytes: big.length, kind: 'response', id: 1 });
      expect(meta?.text).toBeUndefined();
      const whole = await r.read(2);
      expect(whole?.type === 'frame' && whole.text?.length).toBe(big.length);
      const types: string[] = [];
      for await (const e of r.events(['state', 'end'])) types.push(e.type);
      expect(types).toEqual(['state', 'end']);
      expect(r.info.badLines).toBe(0);
    } finally {
      await r.close();
    }
  });

  it('reads lines of a writer with another key order, counts garbage', async () => {
    const file = write('other.jsonl', [
      HEADER,
      '{"type":"frame","dir":"out","t":9,"bytes":4,"text":"ping","seq":1,"kind":"request","offset":null}',
      'not json at all',
      '{"t":10,"type":"exit","code":0,"signal":null}',
    ]);
    const r = await TraceReader.open(file);
    try {
      expect(r.count).toBe(2);
      expect([r.type(0), r.t(0), r.bytes(0), r.frameDir(0)]).toEqual(['frame', 9, 4, 'out']);
      expect(r.info.badLines).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('a trace cut mid-line keeps every whole event and counts the cut bytes', async () => {
    const file = write(
      'cut.jsonl',
      [
        HEADER,
        { t: 1, type: 'state', state: 'running', pid: 1 },
        '{"t":2,"type":"frame","dir":"in","seq":1,"bytes":50,"text":"abc',
      ],
      '',
    );
    const r = await TraceReader.open(file);
    try {
      expect(r.count).toBe(1);
      expect(r.info.partialTailBytes).toBeGreaterThan(0);
      expect(r.lastIndexOf('end')).toBe(-1);
    } finally {
      await r.close();
    }
  });

  it('rejects files that are not traces with one clear line', async () => {
    const notTrace = write('nope.jsonl', [{ hello: 1 }]);
    await expect(TraceReader.open(notTrace)).rejects.toThrow(/not a pipescope trace/);
    const newer = write('v2.jsonl', [{ ...HEADER, version: 2 }]);
    await expect(TraceReader.open(newer)).rejects.toThrow(/unsupported trace version 2/);
    const empty = write('empty.jsonl', [], '');
    await expect(TraceReader.open(empty)).rejects.toThrow(/empty/);
    await expect(TraceReader.open(path.join(dir, 'missing.jsonl'))).rejects.toBeInstanceOf(
      TraceReadError,
    );
  });

  it('skips and counts lines it cannot use: cut in the middle, null where an object must be', async () => {
    const file = write('damaged.jsonl', [
      HEADER,
      { t: 1, type: 'state', state: 'running', pid: 1 },
      '{"t":2,"type":"frame","dir":"in","seq":1,"bytes":50,"kind":"response","text":"ab',
      '{"t":3,"type":"request","record":null}',
      '{"t":4,"type":"metrics","metrics":{}}',
      '{"t":5,"type":"state","pid":1}',
      { t: 6, type: 'state', state: 'stopped', pid: 1 },
    ]);
    const r = await TraceReader.open(file);
    try {
      const seen: number[] = [];
      for await (const e of r.events()) seen.push(e.t);
      expect(seen).toEqual([1, 4, 6]);
      // The text was cut, not the metadata before it: the frame is listed, its bytes are not.
      expect(await r.read(1)).toBeNull();
      expect(await r.frameMeta(1)).toMatchObject({ seq: 1, kind: 'response' });
      expect(r.skippedLines).toBe(3);
    } finally {
      await r.close();
    }
  });

  it('reads events in blocks: the same events as one by one, over many lines', async () => {
    const lines: (string | object)[] = [HEADER];
    for (let i = 0; i < 20_000; i++)
      lines.push(
        i % 7 === 0
          ? {
              t: i,
              type: 'frame',
              dir: 'in',
              seq: i,
              bytes: 3000,
              kind: 'response',
              offset: 0,
              text: 'y'.repeat(3000),
            }
          : { t: i, type: 'state', state: 'running', pid: i },
      );
    const r = await TraceReader.open(write('many.jsonl', lines));
    try {
      const blocks: number[] = [];
      for await (const e of r.events(['state'])) blocks.push(e.index);
      const single: number[] = [];
      for (let i = 0; i < r.count; i++) if ((await r.read(i))?.type === 'state') single.push(i);
      expect(blocks).toEqual(single);
      expect(blocks.length).toBe(20_000 - Math.ceil(20_000 / 7));
    } finally {
      await r.close();
    }
  });

  it.runIf(process.platform !== 'win32')(
    'refuses what is not a regular file at once (a FIFO, a device, a directory)',
    async () => {
      const fifo = path.join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      await expect(TraceReader.open(fifo)).rejects.toThrow(
        /is a FIFO \(named pipe\), not a trace file/,
      );
      await expect(TraceReader.open('/dev/zero')).rejects.toThrow(/is a device/);
      await expect(TraceReader.open(dir)).rejects.toThrow(/is a directory/);
    },
  );

  it('says what is wrong with a first line that is no header', async () => {
    const cut = path.join(dir, 'cut-header.jsonl');
    writeFileSync(cut, JSON.stringify(HEADER).slice(0, 60));
    await expect(TraceReader.open(cut)).rejects.toThrow(/header line is cut short/);
    const huge = path.join(dir, 'one-line.jsonl');
    writeFileSync(huge, Buffer.alloc(3 * 1024 * 1024, 0x78));
    await expect(TraceReader.open(huge)).rejects.toThrow(/first line is over 1 MiB/);
    const binary = path.join(dir, 'binary.jsonl');
    writeFileSync(binary, Buffer.from('A=1\0B=2\0'));
    await expect(TraceReader.open(binary)).rejects.toThrow(/first line is not JSON/);
  });
});
