/**
 * The stdout reader at pipe-read boundaries: where a batch is sealed (the end of a read), and how
 * a line that crosses reads travels (joined within 16 KiB, else as its pieces, validated at its
 * end). The property
 * tests of the whole path are in stdout-reader.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { own } from '../../test/fixtures/outbox-harness.js';
import { ChunkReader } from '../engine/transport/frame-bytes.js';
import { decodeFrames } from '../engine/transport/in-frame.js';
import { type Classified, classifyFrameByParse } from '../wire/classify.js';
import type { LineRows } from '../wire/columns.js';
import { Outbox } from './outbox.js';
import { StdoutReader } from './stdout-reader.js';

describe('StdoutReader → Outbox batch sizes', () => {
  /** `count` responses of ~`size` bytes in 64 KiB reads, with no flush until the end, as when
   *  the worker is too busy to flush between reads. */
  function flood(count: number, size: number, creditFrames: number) {
    const lines: string[] = [];
    for (let i = 0; i < count; i++)
      lines.push(
        JSON.stringify({ jsonrpc: '2.0', id: i, result: { t: 'x'.repeat(size - 50 + (i % 50)) } }),
      );
    const stream = Buffer.from(`${lines.join('\n')}\n`);
    const sizes: number[] = [];
    let frames = 0;
    const outbox = new Outbox({
      creditFrames,
      creditBytes: 1 << 30,
      spillMaxBytes: 1 << 30,
      now: () => 0,
      post: ({ metas, buffers, transfer }) => {
        const msg = structuredClone({ metas, buffers }, { transfer });
        sizes.push(msg.metas.n);
        for (const f of decodeFrames(msg.metas, new ChunkReader(msg.buffers))) {
          expect(f.data.toString()).toBe(lines[frames]);
          frames += 1;
        }
        outbox.credit(msg.metas.n, 1);
      },
      onOverload: () => true,
      onSeal: (chunk) => stdout.sealed(chunk),
    });
    const stdout = new StdoutReader(1 << 20, outbox, () => {});
    for (let at = 0; at < stream.length; at += 64 * 1024) {
      stdout.push(own(stream.subarray(at, at + 64 * 1024)), 0);
    }
    stdout.end();
    outbox.flush();
    return { sizes, frames };
  }

  it('seals a full batch at the end of a read, even when the next line began in it', () => {
    // Lines over the join size (16 KiB) cross reads as pieces of them: the read they end in
    // joins the batch, so only the end of a read can seal it. Batches take a quarter of the
    // credits (100 here), sealed between reads: at most one read's lines (~4) over that.
    // Sealed only at the flush, this was one batch of all 600 frames.
    const { sizes, frames } = flood(600, 17_000, 400);
    expect(frames).toBe(600);
    expect(sizes.length).toBeGreaterThanOrEqual(6);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(100 + 5);
  });

  it('...and a flood of small lines stays in batches near a quarter of the credits', () => {
    const { sizes, frames } = flood(20_000, 200, 8192);
    expect(frames).toBe(20_000);
    expect(sizes.length).toBeGreaterThanOrEqual(8);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(2048 + 400);
  });
});

describe('StdoutReader: lines that cross reads', () => {
  /** How each line reached the outbox: whole in one buffer (`line`, its bytes there) or as the
   *  pieces of the reads it crossed (`spanning`). */
  function route(
    text: string | Buffer,
    cut: number[],
    onRead?: (reader: StdoutReader) => void,
    maxFrameBytes = 1 << 20,
  ) {
    const stream = Buffer.from(text);
    const got: {
      how: string;
      bytes: string;
      kind: string;
      id?: unknown;
      buf?: Buffer;
      problem?: string;
    }[] = [];
    const outbox = {
      addLine(
        c: Classified | null,
        chunk: Buffer,
        s: number,
        e: number,
        _o: number,
        _t: number,
        id = 0,
      ) {
        const bytes = chunk.subarray(s, e).toString('latin1');
        got.push({
          how: 'line',
          bytes,
          kind: c?.kind ?? 'response',
          id: c ? c.id : id,
          buf: chunk,
        });
      },
      addResponses(chunk: Buffer, rows: LineRows, r0: number, r1: number) {
        for (let r = r0; r < r1; r++) {
          got.push({
            how: 'line',
            bytes: chunk.subarray(rows.startAt(r), rows.endAt(r)).toString('latin1'),
            kind: 'response',
            id: rows.idAt(r),
          });
        }
      },
      addSpanning(
        c: Classified,
        pieces: { chunk: Buffer; start: number; end: number }[],
        n: number,
      ) {
        const joined = Buffer.concat(pieces.map((p) => p.chunk.subarray(p.start, p.end)));
        got.push({
          how: 'spanning',
          bytes: joined.subarray(0, n).toString('latin1'),
          kind: c.kind,
          id: c.id,
          problem: c.problem,
        });
      },
      chunkDone() {},
    } as unknown as Outbox;
    const reader = new StdoutReader(maxFrameBytes, outbox, () => {});
    onRead?.(reader);
    let at = 0;
    for (const n of [...cut, stream.length]) {
      if (n > at) {
        reader.push(own(stream.subarray(at, n)), 0);
        onRead?.(reader);
      }
      at = Math.max(at, n);
    }
    reader.end();
    return got;
  }

  it('joins a short one and classifies it as a whole line, in a buffer of its own', () => {
    const resp = '{"jsonrpc":"2.0","id":7,"result":{}}';
    const note = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"é"}}';
    const text = `${resp}\n${note}\r\nnot json\n\r\r\n`;
    const got = route(text, [10, 20, 50, 100, 112, 115]);
    expect(got.map((g) => [g.how, g.bytes, g.kind])).toEqual([
      ['line', resp, 'response'],
      ['line', Buffer.from(note).toString('latin1'), 'notification'],
      ['line', 'not json', 'parse-error'],
      // Its own last byte is \r: kept (one \r before \n is the line ending's).
      ['line', '\r', 'parse-error'],
    ]);
    expect(got[0].id).toBe(7);
    // The copy ends in \r\n (not sent as part of the frame): the reads themselves stay whole.
    expect(got[0].buf?.toString()).toBe(`${resp}\r\n`);
  });

  it('finds bad UTF-8 in a line whole in its read, by the check of the read', () => {
    // Valid JSON with a stray byte in a string: only the UTF-8 check can tell.
    const line = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":"'),
      Buffer.from([0xff]),
      Buffer.from('"}\n{"jsonrpc":"2.0","id":2,"result":"ok"}\n'),
    ]);
    expect(route(line, []).map((g) => [g.how, g.kind, g.id])).toEqual([
      ['line', 'parse-error', undefined],
      ['line', 'response', 2],
    ]);
  });

  it('finds bad UTF-8 and a character cut between reads as a whole line would', () => {
    const ok = Buffer.from('{"jsonrpc":"2.0","id":1,"result":"😀"}\n');
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":2,"result":"'),
      Buffer.from([0xf0, 0x9f]),
      Buffer.from('"}\n'),
    ]);
    const cutInEmoji = ok.indexOf(0xf0) + 2;
    const got = route(Buffer.concat([ok, bad]), [cutInEmoji, ok.length + 36]);
    expect(got.map((g) => [g.how, g.kind])).toEqual([
      ['line', 'response'],
      ['line', 'parse-error'],
    ]);
  });

  it('checks the UTF-8 of pieces it held, once a line grows past the join size', () => {
    const x = 'x'.repeat(10_000);
    const head = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":"${x}`);
    const tail = Buffer.from(`${x}"}\n`);
    // A character cut between the reads (neither read is valid UTF-8 on its own): valid.
    const e = Buffer.from('é');
    const ok = route(Buffer.concat([head, e, tail]), [head.length + 1]);
    expect(ok.map((g) => [g.how, g.kind])).toEqual([['spanning', 'response']]);
    // A stray byte in the held part: not UTF-8, though the read it ends in is.
    const bad = route(Buffer.concat([head, Buffer.from([0xff]), tail]), [head.length + 1]);
    expect(bad.map((g) => [g.how, g.kind])).toEqual([['spanning', 'parse-error']]);
    // The same after a short line joined from valid reads: what was held for that one is gone.
    const short = '{"jsonrpc":"2.0","id":0,"result":{}}\n';
    const after = route(Buffer.concat([Buffer.from(short), head, Buffer.from([0xff]), tail]), [
      10,
      short.length + head.length + 1,
    ]);
    expect(after.map((g) => [g.how, g.kind])).toEqual([
      ['line', 'response'],
      ['spanning', 'parse-error'],
    ]);
  });

  it('joins up to 16 KiB held (a \\r included), keeps the pieces past it, cut anywhere near', () => {
    for (const n of [16_382, 16_383, 16_384, 16_385]) {
      for (const eol of ['\n', '\r\n']) {
        const body = `{"jsonrpc":"2.0","id":5,"result":"${'y'.repeat(n - 36)}"}`;
        expect(body.length).toBe(n);
        const text = `${body}${eol}`;
        for (const cut of [1, 8_000, n - 1, n, n + 1]) {
          const got = route(text, [cut]);
          // Held: every byte before the \n, a \r included (a line in one read is not held).
          const held = n + eol.length - 1;
          const how = cut >= text.length ? 'line' : held <= 16_384 ? 'line' : 'spanning';
          expect(
            [got.length, got[0].how, got[0].bytes, got[0].kind],
            `${n} ${JSON.stringify(eol)} ${cut}`,
          ).toEqual([1, how, body, classifyFrameByParse(Buffer.from(body)).kind]);
        }
      }
    }
  });

  it('validates a long one from its pieces at its end', () => {
    const long = JSON.stringify({ jsonrpc: '2.0', id: 3, result: 'x'.repeat(40_000) });
    const got = route(`${long}\n{"jsonrpc":"2.0","id":4,"result":1}\n`, [100, 20_000, 40_100]);
    expect(got.map((g) => [g.how, g.bytes.length, g.kind, g.id])).toEqual([
      ['spanning', long.length, 'response', 3],
      ['line', 35, 'response', 4],
    ]);
  });

  /** The bytes the classifier has been given of the line arriving in pieces: before the first
   *  read, then after each. */
  function fedAfterEachRead(text: Buffer, cut: number[]) {
    const fed: number[] = [];
    let bytes = 0;
    const got = route(
      text,
      cut,
      (reader) => {
        const classifier = (reader as unknown as { classifier: { piece(p: Uint8Array): void } })
          .classifier;
        if (!vi.isMockFunction(classifier.piece)) {
          const piece = classifier.piece.bind(classifier);
          classifier.piece = vi.fn((p: Uint8Array, known?: boolean) => {
            bytes += p.length;
            (piece as (p: Uint8Array, known?: boolean) => void)(p, known);
          });
        }
        fed.push(bytes);
      },
      128 * MiB,
    );
    return { got, fed };
  }

  const MiB = 1024 * 1024;
  /** A response whose result is `n` x's, with `patch` written at byte `at` of the line. */
  function longLine(n: number, at = -1, patch: Buffer = Buffer.alloc(0)): Buffer {
    const line = Buffer.from(`{"jsonrpc":"2.0","id":9,"result":"${'x'.repeat(n)}"}\n`);
    if (at >= 0) patch.copy(line, at);
    return line;
  }
  const reads = (total: number, size: number) =>
    Array.from({ length: Math.ceil(total / size) }, (_, i) => (i + 1) * size);

  it('holds a long line to its newline, then validates it: the answer a whole line gets', () => {
    const line = longLine(3 * MiB);
    const { got, fed } = fedAfterEachRead(line, reads(line.length, 64 * 1024));
    expect(got.map((g) => [g.how, g.bytes.length, g.kind, g.id])).toEqual([
      ['spanning', line.length - 1, 'response', 9],
    ]);
    // Nothing until the read with the newline, then all of it but the \n.
    expect(fed.slice(0, -1).every((n) => n === 0)).toBe(true);
    expect(fed.at(-1)).toBe(line.length - 1);
  });

  it('...finds an error or bad UTF-8 in it where a whole line would', () => {
    const cuts = reads(3 * MiB + 64, 100_000);
    // A raw control character inside the string, 2.5 MiB in: the scanner's own position.
    const at = 2.5 * MiB;
    const control = fedAfterEachRead(longLine(3 * MiB, at, Buffer.from([0x01])), cuts).got;
    expect(control.map((g) => [g.how, g.kind])).toEqual([['spanning', 'parse-error']]);
    expect(control[0].problem).toBe(`Bad control character in string literal at byte ${at}`);
    // A character cut between two reads is fine; a stray byte is not.
    const e = Buffer.from('é');
    const cutAt = 2_000_001; // between the character's two bytes (it starts a read: 2,000,000)
    const okLine = longLine(3 * MiB, cutAt - 1, e);
    const ok = fedAfterEachRead(
      okLine,
      [...cuts, cutAt].sort((a, b) => a - b),
    ).got;
    expect(ok.map((g) => [g.how, g.kind, g.id])).toEqual([['spanning', 'response', 9]]);
    const bad = fedAfterEachRead(longLine(3 * MiB, cutAt, Buffer.from([0xff])), cuts).got;
    expect(bad.map((g) => [g.how, g.kind])).toEqual([['spanning', 'parse-error']]);
  });

  it('...and catches up once 64 MiB wait, so a huge line never holds more unchecked', () => {
    const line = longLine(70 * MiB);
    const { got, fed } = fedAfterEachRead(line, reads(line.length, 4 * MiB));
    expect(got.map((g) => [g.kind, g.id])).toEqual([['response', 9]]);
    // Reads of 4 MiB: more than 64 MiB waits after the 17th, which feeds all 68 MiB.
    expect(fed[16]).toBe(0);
    expect(fed[17]).toBe(68 * MiB);
  });
});
