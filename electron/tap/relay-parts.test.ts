/**
 * The relay's small parts, in memory (the relay itself is tested on real processes in
 * test/integration/tap-relay.test.ts): the host's lines, the host read meter, the tee's bound,
 * the tap's own flags.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHostLine } from '../engine/session/host-traffic.js';
import { unbatch } from '../wire/tap-protocol.js';
import { HostLines } from './host-lines.js';
import { type HostRead, HostReadMeter } from './host-read-meter.js';
import { Injector } from './injector.js';
import { parseTapArgs } from './main.js';
import { Tee } from './tee.js';

/** Splits `bytes` at the given cut points. */
function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(at, p));
    at = p;
  }
  return out;
}

describe('HostLines', () => {
  it('gives the lines of the whole stream, however it is cut (one trailing \\r stripped)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a.filter((b) => b !== 10))),
        ),
        fc.array(fc.nat()),
        (lines, cuts) => {
          const stream = Buffer.concat(lines.map((l) => Buffer.concat([l, Buffer.from([10])])));
          const got: string[] = [];
          const h = new HostLines(
            1 << 20,
            (b) => got.push(b.toString('hex')),
            () => {},
          );
          for (const piece of cutAt(stream, cuts)) h.push(piece, 0);
          const want = lines.map((l) => (l.at(-1) === 13 ? l.subarray(0, -1) : l).toString('hex'));
          expect(got).toEqual(want);
        },
      ),
    );
  });

  it('a line over the bound is counted at its newline, and the next line is whole', () => {
    const lines: string[] = [];
    const over: number[] = [];
    const h = new HostLines(
      8,
      (b) => lines.push(b.toString()),
      (n) => over.push(n),
    );
    h.push(Buffer.from('0123'), 0);
    h.push(Buffer.from('456789abc\nok\n'), 0);
    expect(over).toEqual([13]);
    expect(lines).toEqual(['ok']);
  });

  it('a gap in the copies skips to the next newline', () => {
    const lines: string[] = [];
    const h = new HostLines(
      1 << 20,
      (b) => lines.push(b.toString()),
      () => {},
    );
    h.push(Buffer.from('{"a":'), 0);
    h.gap(100);
    h.push(Buffer.from('tail}\n{"b":1}\n'), 0);
    expect(lines).toEqual(['{"b":1}']);
  });
});

describe('HostReadMeter', () => {
  it('times each large line from its first byte read to its last byte taken', () => {
    const reads: HostRead[] = [];
    const m = new HostReadMeter(10, (r) => reads.push(r));
    m.read(Buffer.from('small\n0123456789'), 1); // a small line, then a large one begins
    m.read(Buffer.from('abcdef\n'), 2);
    m.written(6, 3); // the small line taken
    expect(reads).toEqual([]);
    m.written(10, 4);
    expect(reads).toEqual([]); // not all of it yet
    m.written(7, 9);
    expect(reads).toEqual([{ offset: 6, bytes: 17, firstByteAt: 1, deliveredAt: 9 }]);
  });

  it('does not time a line part of which it never saw (skip), and finds the next one', () => {
    const reads: HostRead[] = [];
    const m = new HostReadMeter(10, (r) => reads.push(r));
    m.read(Buffer.from('0123456789'), 1); // a large line begins
    m.skip(20); // its middle was relayed unseen
    m.read(Buffer.from('tail\nabcdefghijk\n'), 2); // its end, then a whole large line
    m.written(10 + 20 + 5 + 12, 5);
    expect(reads).toEqual([{ offset: 35, bytes: 12, firstByteAt: 2, deliveredAt: 5 }]);
  });
});

describe('Tee', () => {
  const make = (data: ArrayBuffer) => ({ n: data.byteLength });

  it('copies up to its bound of unacknowledged bytes, then counts a gap, and copies again once acked', () => {
    const posted: unknown[] = [];
    const tee = new Tee(10, (bytes) => ({ gap: bytes }));
    tee.attach({ postMessage: (m) => posted.push(...unbatch(m)) });
    const chunk = Buffer.from('123456');
    tee.chunk(chunk, make);
    tee.chunk(chunk, make); // 12 > 10: not copied
    expect(tee.droppedBytes).toBe(6);
    tee.ack(6);
    tee.chunk(chunk, make);
    tee.flush();
    expect(posted).toEqual([{ n: 6 }, { gap: 6 }, { n: 6 }]);
  });

  it('posts a burst as one batch, its buffers moved, in order', async () => {
    const batches: { msg: unknown; transfer?: ArrayBuffer[] }[] = [];
    const tee = new Tee(1 << 20, () => null);
    tee.attach({ postMessage: (msg, transfer) => batches.push({ msg, transfer }) });
    for (let i = 0; i < 100; i++) tee.chunk(Buffer.from([i]), make);
    tee.post({ end: true });
    await new Promise((r) => setTimeout(r, 20));
    expect(batches).toHaveLength(1);
    expect(unbatch(batches[0]?.msg)).toHaveLength(101);
    expect(batches[0]?.transfer).toHaveLength(100);
  });

  it('a chunk promised in order holds what follows back, but urgent state; filled, it is moved', () => {
    const batches: { msg: unknown; transfer?: ArrayBuffer[] }[] = [];
    const tee = new Tee(1 << 20, () => null);
    tee.attach({ postMessage: (msg, transfer) => batches.push({ msg, transfer }) });
    const slot = tee.later();
    tee.post({ end: true });
    tee.post({ state: 1 }, true);
    tee.flush();
    expect(batches.map((b) => unbatch(b.msg))).toEqual([[{ state: 1 }]]);
    const own = new Uint8Array(new ArrayBuffer(4)); // a chunk with a buffer of its own
    slot.fill(own, make);
    tee.flush();
    expect(unbatch(batches[1]?.msg)).toEqual([{ n: 4 }, { end: true }]);
    expect(batches[1]?.transfer?.[0]).toBe(own.buffer); // moved, not copied
    const shared = Buffer.from('0123456789').subarray(2, 5); // part of a larger buffer: copied
    const slot2 = tee.later();
    slot2.fill(shared, make);
    tee.flush();
    expect(batches[2]?.transfer?.[0]).not.toBe(shared.buffer);
    expect(shared.toString()).toBe('234');
  });

  it('holds batches until its port comes, under a bound; chunks past it become a gap', () => {
    const tee = new Tee(1 << 20, (bytes) => ({ gap: bytes }));
    for (let i = 0; i < 10_000; i++) {
      tee.post({ i });
      tee.flush();
    }
    tee.chunk(Buffer.from('abc'), make);
    tee.flush(); // no room: its 3 bytes become a gap
    tee.chunk(Buffer.from('de'), make);
    tee.flush();
    const got: unknown[] = [];
    tee.attach({ postMessage: (m) => got.push(...unbatch(m)) });
    expect(got.length).toBe(8192);
    // (the gap message that went before 'de' found no room either)
    expect(tee.lostMessages).toBe(10_000 - 8192 + 1);
    expect(tee.droppedBytes).toBe(5);
  });
});

describe('Injector', () => {
  it("puts Pipescope's lines between two of the host's, never inside one", () => {
    const written: string[] = [];
    const done: unknown[] = [];
    const inj = new Injector(
      (data, cb) => {
        written.push(Buffer.from(data).toString());
        cb?.(null);
      },
      () => null,
      (seq, _ms, error) => done.push([seq, error]),
      () => 0,
    );
    inj.host(Buffer.from('{"id":1,"meth'));
    inj.line(7, Buffer.from('{"cancel":1}\n'));
    expect(written.join('')).toBe('{"id":1,"meth'); // waits: the host is inside a line
    inj.host(Buffer.from('od":"x"}\n{"id":2'));
    inj.host(Buffer.from('}\n'));
    expect(written.join('')).toBe('{"id":1,"method":"x"}\n{"cancel":1}\n{"id":2}\n');
    expect(done).toEqual([[7, undefined]]);
    inj.line(8, Buffer.from('{"cancel":2}\n')); // at a line's end: at once
    expect(written.at(-1)).toBe('{"cancel":2}\n');
  });

  it('a line still waiting when the server goes is failed, once', () => {
    const done: unknown[] = [];
    const inj = new Injector(
      () => {},
      () => null,
      (seq, _ms, e) => done.push([seq, e]),
      () => 0,
    );
    inj.host(Buffer.from('{"partial'));
    inj.line(3, Buffer.from('x\n'));
    inj.fail('the server is gone');
    inj.fail('again');
    expect(done).toEqual([[3, 'the server is gone']]);
  });
});

describe("the tap's flags", () => {
  it('takes its own flags, then the server command after --', () => {
    expect(
      parseTapArgs(['--name', 'fs', '--no-publish', '--', 'npx', '-y', 'srv', '--name']),
    ).toEqual({
      name: 'fs',
      host: null,
      trace: null,
      redact: true,
      publish: false,
      command: 'npx',
      args: ['-y', 'srv', '--name'],
    });
    expect(parseTapArgs(['--', 'cat'])).toMatchObject({ command: 'cat', args: [] });
    expect(parseTapArgs(['--trace', 't.jsonl', '--no-redact', '--', 'cat'])).toMatchObject({
      trace: 't.jsonl',
      redact: false,
    });
  });

  it('refuses what it does not know, and a missing command', () => {
    expect(parseTapArgs(['--bogus', '--', 'cat'])).toMatch(/unknown option --bogus/);
    expect(parseTapArgs(['--name'])).toMatch(/--name needs a value/);
    expect(parseTapArgs(['cat'])).toMatch(/after --/);
    expect(parseTapArgs(['--'])).toMatch(/after --/);
    expect(parseTapArgs(['--no-redact', '--', 'cat'])).toMatch(/--no-redact needs --trace/);
  });
});

describe("the host's lines as the session reads them", () => {
  it('requests, notifications, responses and junk', () => {
    expect(
      parseHostLine(Buffer.from('{"jsonrpc":"2.0","id":3,"method":"tools/call"}')),
    ).toMatchObject({
      kind: 'request',
      id: 3,
      method: 'tools/call',
    });
    expect(
      parseHostLine(Buffer.from('{"method":"notifications/cancelled","params":{"requestId":3}}')),
    ).toMatchObject({
      kind: 'notification',
    });
    expect(parseHostLine(Buffer.from('{"id":"a","result":{}}'))).toMatchObject({
      kind: 'response',
      id: 'a',
    });
    expect(parseHostLine(Buffer.from('[1]')).kind).toBe('batch');
    expect(parseHostLine(Buffer.from('{oops')).kind).toBe('parse-error');
    expect(parseHostLine(Buffer.from('')).kind).toBe('empty');
    expect(parseHostLine(Buffer.from('{"__proto__":{"x":1}}')).kind).toBe('invalid');
  });
});
