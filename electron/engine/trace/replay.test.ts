/**
 * Replay plan: the recorded client→server messages in order, with their causal waits, our
 * progress tokens dropped, cancellations kept for re-aiming, answers to server requests and
 * frames without text left out (and said so).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEADER, writeTrace } from '../../../test/fixtures/trace-fixtures.js';
import { TraceReader } from './reader.js';
import { planReplay } from './replay.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function out(t: number, msg: object, extra: object = {}): object {
  const text = JSON.stringify({ jsonrpc: '2.0', ...msg });
  seq += 1;
  return {
    t,
    type: 'frame',
    dir: 'out',
    seq,
    bytes: text.length,
    kind: 'x',
    offset: null,
    ...extra,
    text,
  };
}
function inResponse(t: number, id: number, text: string | null): object {
  seq += 1;
  const base = { t, type: 'frame', dir: 'in', seq, bytes: 20, kind: 'response', offset: 0, id };
  return text === null ? { ...base, truncated: true, sha256: 'f'.repeat(64) } : { ...base, text };
}

describe('planReplay', () => {
  it('orders steps, waits only where the recording waited, and re-aims cancellations', async () => {
    const file = writeTrace(path.join(dir, 'plan.jsonl'), [
      HEADER,
      out(1, { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }),
      inResponse(5, 1, '{"jsonrpc":"2.0","id":1,"result":{}}'),
      out(6, { method: 'notifications/initialized' }),
      out(7, {
        id: 2,
        method: 'tools/call',
        params: { name: 'slow', arguments: {}, _meta: { progressToken: 'pipescope-2' } },
      }),
      { t: 8, type: 'mode', readerMode: 'paused', consumerDelayMs: 0 },
      // A server ping and our answer: the new session answers its own.
      out(9, { id: 'srv-1', result: {} }),
      out(50, { method: 'notifications/cancelled', params: { requestId: 2, reason: 'user' } }),
      out(60, { id: 3, method: 'ping' }),
      inResponse(61, 3, null),
      {
        t: 70,
        type: 'frame',
        dir: 'out',
        seq: 99,
        bytes: 9e6,
        kind: 'request',
        offset: null,
        id: 4,
        method: 'tools/call',
        truncated: true,
        sha256: null,
      },
      inResponse(80, 2, '{"jsonrpc":"2.0","id":2,"result":{}}'),
    ]);
    const r = await TraceReader.open(file);
    try {
      const plan = await planReplay(r);
      expect(
        plan.steps.map((s) => [s.kind, 'method' in s ? s.method : '', s.t, s.waitFor]),
      ).toEqual([
        ['request', 'initialize', 1, []],
        ['notify', 'notifications/initialized', 6, [1]],
        ['request', 'tools/call', 7, []],
        ['mode', '', 8, []],
        ['cancel', '', 50, []],
        ['request', 'ping', 60, []],
      ]);
      const call = plan.steps[2];
      expect(call.kind === 'request' && call.progress).toBe(true);
      expect(call.kind === 'request' && call.params).toEqual({ name: 'slow', arguments: {} });
      expect(plan.steps[4]).toMatchObject({ kind: 'cancel', oldId: 2, reason: 'user' });
      expect(plan.notes).toEqual([expect.stringMatching(/#99 \(tools\/call\) not replayed/)]);
      expect(plan.responses.get('n:3')).toMatchObject({ truncated: true, sha256: 'f'.repeat(64) });
      expect(plan.responses.get('n:2')).toMatchObject({ truncated: false, bytes: 20 });
    } finally {
      await r.close();
    }
  });

  it('sends a default initialize first when the trace has none', async () => {
    const file = writeTrace(path.join(dir, 'noinit.jsonl'), [
      HEADER,
      out(3, { id: 7, method: 'ping' }),
    ]);
    const r = await TraceReader.open(file);
    try {
      const plan = await planReplay(r);
      expect(plan.steps.map((s) => ('method' in s ? s.method : s.kind))).toEqual([
        'initialize',
        'notifications/initialized',
        'ping',
      ]);
      expect(plan.notes[0]).toMatch(/no initialize first/);
    } finally {
      await r.close();
    }
  });
});
