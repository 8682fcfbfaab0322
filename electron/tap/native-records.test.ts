import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  abandonCommand,
  injectCommand,
  type NativeRecord,
  type Piece,
  R,
  Reassembler,
  RecordReader,
  stateMessage,
  yieldCommand,
} from './native-records.js';

type Mark = Extract<NativeRecord, { type: 'mark' }>;

/** A record as relay.c writes it: header (type, dir, flags, length u32 LE), u64s, bytes. */
function encode(type: number, dir: number, flags: number, u: bigint[], bytes = new Uint8Array()) {
  const out = new Uint8Array(8 + u.length * 8 + bytes.length);
  const view = new DataView(out.buffer);
  out[0] = type;
  out[1] = dir;
  out[2] = flags;
  view.setUint32(4, u.length * 8 + bytes.length, true);
  u.forEach((v, i) => {
    view.setBigUint64(8 + i * 8, v, true);
  });
  out.set(bytes, 8 + u.length * 8);
  return out;
}

/** Cuts `data` at the given fractions (0..1), in order. */
function cut(data: Uint8Array, at: number[]): Uint8Array[] {
  const points = [...new Set(at.map((f) => Math.floor(f * data.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    out.push(data.subarray(from, p));
    from = p;
  }
  out.push(data.subarray(from));
  return out;
}

const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('RecordReader', () => {
  it('reads every kind of record relay.c writes', () => {
    const text = new TextEncoder().encode('server closed stdin');
    const records = [
      encode(R.ready, 0, 0, [5n]),
      encode(R.mark, 1, 3, [10n, 20n, 30n, 40n]),
      encode(R.eof, 0, 0, [50n, 1234n]),
      encode(R.state, 0, 0, [60n, 1n, 55n, 7n, 65536n, 99n, 12n, 3n, 0n, 8n, 1n, 0n, 52n]),
      encode(R.stdin, 0, 0, [70n, 0n], new Uint8Array([1, 2, 3])),
      encode(R.stdinGap, 0, 0, [80n, 3n, 9n]),
      encode(R.stdinEof, 0, 0, [90n]),
      encode(R.injectDone, 0, 0, [4n, 2_000_000n], text),
      encode(R.injectDone, 0, 0, [5n, 1n]),
      encode(R.hostGone, 0, 0, [100n]),
      encode(R.done, 0, 0, [110n]),
    ];
    const got = new RecordReader().push(concat(records));
    expect(got).toEqual([
      { type: 'ready', t: 5n },
      {
        type: 'mark',
        dir: 1,
        offset: 10,
        bytes: 20,
        readAt: 30n,
        writtenAt: 40n,
        observed: true,
        delivered: false,
      },
      { type: 'eof', dir: 0, t: 50n, total: 1234 },
      {
        type: 'state',
        t: 60n,
        hostBlocked: true,
        hostBlockedSince: 55n,
        hostBlockedNs: 7n,
        pendingBytes: 65536,
        deliveredBytes: 99,
        stdinWritten: 12,
        stdinPendingBytes: 3,
        stdinBlockedSince: null,
        stdinWaitNs: 8n,
        stdinClosed: true,
        hostResumedAt: null,
        serverReadAt: 52n,
      },
      { type: 'stdin', t: 70n, offset: 0, data: new Uint8Array([1, 2, 3]) },
      { type: 'stdin-gap', t: 80n, offset: 3, bytes: 9 },
      { type: 'stdin-eof', t: 90n },
      { type: 'inject-done', seq: 4, waitedNs: 2_000_000n, error: 'server closed stdin' },
      { type: 'inject-done', seq: 5, waitedNs: 1n, error: null },
      { type: 'host-gone', dir: 0, t: 100n },
      { type: 'done', t: 110n },
    ]);
  });

  it('gives the same records whatever the chunks (property)', () => {
    const record = fc.oneof(
      fc
        .tuple(fc.bigInt({ min: 0n, max: 2n ** 40n }), fc.uint8Array({ maxLength: 300 }))
        .map(([t, b]) => encode(R.stdin, 0, 0, [t, 7n], b)),
      fc
        .tuple(
          fc.integer({ min: 0, max: 1 }),
          fc.integer({ min: 0, max: 3 }),
          fc.bigInt({ min: 0n, max: 2n ** 40n }),
        )
        .map(([dir, flags, n]) => encode(R.mark, dir, flags, [n, n + 1n, n + 2n, n + 3n])),
      fc.bigInt({ min: 0n, max: 2n ** 40n }).map((t) => encode(R.done, 0, 0, [t])),
    );
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 30 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        (records, at) => {
          const whole = new RecordReader().push(concat(records));
          const reader = new RecordReader();
          const pieces = cut(concat(records), at).flatMap((c) => reader.push(c.slice()));
          expect(pieces).toEqual(whole);
          expect(whole).toHaveLength(records.length);
        },
      ),
    );
  });

  it('refuses a record no relay writes (a broken stream), not waiting for it for ever', () => {
    const reader = new RecordReader();
    const huge = new Uint8Array(8);
    huge[0] = R.stdin;
    new DataView(huge.buffer).setUint32(4, 64 * 1024 * 1024, true);
    expect(() => reader.push(huge)).toThrow(/a record of/);
    expect(() => new RecordReader().push(encode(99, 0, 0, []))).toThrow(/unknown record type/);
  });
});

describe('commands', () => {
  it('inject: header, the sequence number, the line; abandon: a bare header', () => {
    const line = new TextEncoder().encode('{"x":1}\n');
    const cmd = injectCommand(42, line);
    const view = new DataView(cmd.buffer);
    expect(cmd[0]).toBe(1);
    expect(view.getUint32(4, true)).toBe(8 + line.length);
    expect(view.getBigUint64(8, true)).toBe(42n);
    expect([...cmd.subarray(16)]).toEqual([...line]);
    expect([...abandonCommand()]).toEqual([2, 0, 0, 0, 0, 0, 0, 0]);
    // relay.h's C_YIELD, no payload.
    expect([...yieldCommand()]).toEqual([3, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('Reassembler', () => {
  const mark = (offset: number, bytes: number, observed: boolean): Mark => ({
    type: 'mark',
    dir: 0,
    offset,
    bytes,
    readAt: BigInt(offset),
    writtenAt: BigInt(offset),
    observed,
    delivered: true,
  });

  it('puts copies and marks together in order, whichever comes first (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 200 }), fc.boolean()), {
          minLength: 1,
          maxLength: 25,
        }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 15 }),
        fc.array(fc.boolean(), { maxLength: 80 }),
        (shape, at, order) => {
          // The stream, its marks, and the copied bytes (the observed pieces only).
          let offset = 0;
          const marks: Mark[] = [];
          const expected: string[] = [];
          const copied: number[] = [];
          for (const [bytes, observed] of shape) {
            marks.push(mark(offset, bytes, observed));
            const data = Array.from({ length: bytes }, (_, i) => (offset + i) % 251);
            if (observed) {
              copied.push(...data);
              expected.push(`bytes ${offset} ${data.join(',')}`);
            } else expected.push(`gap ${offset} ${bytes}`);
            offset += bytes;
          }
          const chunks = cut(Uint8Array.from(copied), at).filter((c) => c.length > 0);
          const got: string[] = [];
          const r = new Reassembler((p: Piece) =>
            got.push(
              p.kind === 'gap'
                ? `gap ${p.mark.offset} ${p.mark.bytes}`
                : `bytes ${p.mark.offset} ${[...p.data].join(',')}`,
            ),
          );
          // Marks and chunks arrive interleaved as `order` says (the rest after).
          let m = 0;
          let c = 0;
          for (const markFirst of order) {
            if (markFirst && m < marks.length) r.mark(marks[m++] as Mark);
            else if (c < chunks.length) r.bytes((chunks[c++] as Uint8Array).slice());
          }
          while (m < marks.length) r.mark(marks[m++] as Mark);
          while (c < chunks.length) r.bytes((chunks[c++] as Uint8Array).slice());
          expect(got).toEqual(expected);
          expect(r.idle).toBe(true);
          expect(r.waitingBytes).toBe(0);
        },
      ),
    );
  });

  it('abandon: what marks still wait for becomes a gap', () => {
    const got: Piece[] = [];
    const r = new Reassembler((p) => got.push(p));
    r.mark(mark(0, 4, true));
    r.mark(mark(4, 6, true));
    r.bytes(new Uint8Array([1, 2, 3, 4, 5]));
    expect(got.map((p) => p.kind)).toEqual(['bytes']);
    expect(r.idle).toBe(false);
    r.abandon();
    expect(got.map((p) => [p.kind, p.mark.bytes])).toEqual([
      ['bytes', 4],
      ['gap', 6],
    ]);
    expect(r.idle).toBe(true);
    expect(r.waitingBytes).toBe(0);
  });
});

describe('stateMessage', () => {
  const at = (ns: bigint): number => Number(ns) / 1e6 - 1000; // the tap's clock: ms, another zero
  const state = {
    t: 5_000_000_000n,
    hostBlocked: true,
    hostBlockedSince: 4_500_000_000n,
    hostBlockedNs: 1_250_000_000n,
    pendingBytes: 65536,
    deliveredBytes: 99,
    stdinWritten: 12,
    stdinPendingBytes: 3,
    stdinBlockedSince: null,
    stdinWaitNs: 2_000_000n,
    stdinClosed: false,
    hostResumedAt: 3_000_000_000n,
    serverReadAt: 4_499_000_000n,
  };

  it("gives the relay's state in the tap's time, durations in ms", () => {
    expect(stateMessage(state, at)).toEqual({
      type: 'state',
      t: 4000,
      host: {
        reading: false,
        notReadingSince: 3500,
        notReadingMs: 1250,
        pendingBytes: 65536,
        deliveredBytes: 99,
        resumedAt: 2000,
        serverReadAt: 3499,
      },
      stdin: { bytes: 12, pendingBytes: 3, pendingSince: null, waitMs: 2, closed: false },
    });
  });

  it('a host reading and a stdin blocked: no since for the host, one for stdin', () => {
    const m = stateMessage(
      { ...state, hostBlocked: false, hostBlockedSince: null, stdinBlockedSince: 4_900_000_000n },
      at,
    );
    expect(m).toMatchObject({
      host: { reading: true, notReadingSince: null },
      stdin: { pendingSince: 3900 },
    });
  });
});
