/**
 * A flight recorder's lazy frame line (`lazyFrameLine`): made later, it is the line
 * `frameEvent` makes now, whatever the bytes; and what it holds until then costs about what the
 * ring counts for it (the ring's 64 MiB bound is that count).
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../session/frame-store.js';
import { frameEvent, lazyFrameLine } from './frame-event.js';
import { Redactor } from './redact.js';
import type { LazyLine } from './trace-sink.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function summary(seq: number, bytes: number): FrameSummary {
  return {
    seq,
    dir: 'in',
    t: seq * 0.0123456,
    offset: seq * 100,
    bytes,
    kind: 'notification',
    id: undefined,
    method: 'notifications/progress',
    problem: undefined,
    preview: '',
    held: true,
  };
}

/** Heap and ArrayBuffer memory after a full collection. */
function used(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

describe('lazyFrameLine', () => {
  it('renders the line frameEvent makes now, for any bytes, redaction on or off', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.uint8Array({ minLength: 4000, maxLength: 5000 }),
          fc
            .string({ unit: 'binary', maxLength: 200 })
            .map((s) => new TextEncoder().encode(`{"token":"sk_live_0123456789abcdef${s}"}`)),
        ),
        fc.boolean(),
        (bytes, redact) => {
          const data = Buffer.from(bytes);
          const f = summary(7, data.length);
          const now = frameEvent(f, data, true, new Redactor({ enabled: redact }));
          now.t = Math.round(now.t * 1000) / 1000;
          const line = lazyFrameLine(f, data, new Redactor({ enabled: redact }));
          data.fill(0); // the store's buffer is reused: the line holds its own copy
          f.preview = 'filled later by the store';
          expect(line.render()).toBe(`${JSON.stringify(now)}\n`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds small frames for about what the ring counts, whatever else Node’s pool held', () => {
    const redactor = new Redactor({ enabled: true });
    const n = 20_000;
    const held: LazyLine[] = [];
    let counted = 0;
    const before = used();
    for (let i = 0; i < n; i++) {
      // Small Buffers share Node's 8 KiB pool: a tap's observer copies each host write
      // (Buffer.from(msg.data)) and each host line for the store (host-traffic.ts), and lets
      // them go; a copy kept beside them would keep their slab.
      Buffer.from('x'.repeat(2000));
      const body = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":${i}}}`;
      const data = Buffer.from(body);
      const f = summary(i + 1, data.length);
      const line = lazyFrameLine(f, data, redactor);
      // The store decodes a preview before it lets the frame's bytes go (frame-store.ts).
      f.preview = data.toString('utf8');
      held.push(line);
      counted += line.bytes;
    }
    const real = used() - before;
    expect(held).toHaveLength(n);
    // Strings and small objects cost more than their characters: within twice, not 8 KiB each.
    expect(real / counted).toBeLessThan(2);
  });
});
