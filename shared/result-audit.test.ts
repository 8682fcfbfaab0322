import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditResult, base64Runs, bytesOnlyAudit, utf8Bytes } from './result-audit.js';

// 1,600 base64 characters of 1,200 varied bytes (an encoded payload, as a download would be)
const B64 = Buffer.from(Uint8Array.from({ length: 1200 }, (_, i) => (i * 31 + 7) % 256)).toString(
  'base64',
);

describe('auditResult', () => {
  it('tallies content blocks by kind and size, isError, the largest block', () => {
    const a = auditResult(
      'tools/call',
      {
        isError: true,
        content: [
          { type: 'text', text: 'héllo' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'text', text: 'x'.repeat(10) },
          { type: 'resource', resource: { uri: 'file:///a', text: 'abc' } },
          'not a block',
        ],
      },
      500,
    );
    expect(a.isError).toBe(true);
    expect(a.bytes).toBe(500);
    expect(a.blocks).toEqual([
      { kind: 'text', count: 2, bytes: 16 },
      { kind: 'image', count: 1, bytes: 4 },
      { kind: 'resource', count: 1, bytes: 3 },
      { kind: 'invalid', count: 1, bytes: 0 },
    ]);
    expect(a.largestBlock).toEqual({ kind: 'text', bytes: 10 });
    expect(a.textChars).toBe(18);
    expect(a.estimatedTokens).toBe(5);
    expect(a.incomplete).toEqual([]);
  });

  it('finds text sent twice in structuredContent (server-filesystem read_text_file)', () => {
    const text = 'line\n'.repeat(1000);
    const a = auditResult(
      'tools/call',
      { content: [{ type: 'text', text }], structuredContent: { content: text } },
      12_000,
    );
    expect(a.duplicatedBytes).toBe(utf8Bytes(text));
    expect(a.structuredBytes).toBe(utf8Bytes(JSON.stringify({ content: text })));
  });

  it('says how a result says it is incomplete', () => {
    const a = auditResult(
      'tools/call',
      {
        content: [{ type: 'text', text: 'first 100 rows (truncated)' }],
        structuredContent: { truncated: true, nextCursor: 'c2' },
        nextCursor: 'c1',
      },
      100,
    );
    expect(a.incomplete).toEqual([
      'structuredContent.truncated',
      'nextCursor',
      'structuredContent.nextCursor',
      'its text says so',
    ]);
  });

  it('audits resources/read contents and prompts/get messages', () => {
    const r = auditResult(
      'resources/read',
      {
        contents: [
          { uri: 'a', blob: B64 },
          { uri: 'b', text: 'hi' },
        ],
      },
      2000,
    );
    expect(r.blocks).toEqual([{ kind: 'contents', count: 2, bytes: B64.length + 2 }]);
    const p = auditResult(
      'prompts/get',
      { messages: [{ role: 'user', content: { type: 'text', text: 'q' } }] },
      80,
    );
    expect(p.blocks).toEqual([{ kind: 'text', count: 1, bytes: 1 }]);
  });

  it('survives any result without throwing', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.constantFrom('tools/call', 'resources/read', 'prompts/get'),
        (v, m) => {
          const a = auditResult(m, v, 10);
          expect(a.textBytes).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 500 },
    );
    // Deep nesting is walked to a bound, not recursed without end.
    let deep: unknown = 'x'.repeat(300);
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(
      auditResult('tools/call', { content: [], structuredContent: deep }, 1).duplicatedBytes,
    ).toBe(0);
  });

  it('a bytes-only audit says why', () => {
    expect(bytesOnlyAudit('tools/call', 9, 'queue full')).toMatchObject({
      bytes: 9,
      partial: 'queue full',
    });
  });
});

describe('base64Runs', () => {
  it('counts long runs and data URIs with their padding, not prose', () => {
    expect(base64Runs(`see ${B64}== and more`)).toEqual({ count: 1, bytes: B64.length + 2 });
    expect(base64Runs('data:image/png;base64,iVBORw0KGgo=')).toEqual({ count: 1, bytes: 12 });
    expect(base64Runs('The quick brown fox jumps over the lazy dog. '.repeat(100))).toEqual({
      count: 0,
      bytes: 0,
    });
  });

  it('counts encoded bytes, not a long run of filler or of one word', () => {
    const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7919 + 13) % 256);
    const real = Buffer.from(bytes).toString('base64');
    expect(base64Runs(`x ${real} y`)).toEqual({ count: 1, bytes: real.length });
    // The oversized-result demo's 8 MiB answer is 'x' repeated: filler, not a download.
    expect(base64Runs('x'.repeat(64 * 1024))).toEqual({ count: 0, bytes: 0 });
    expect(base64Runs('abAB'.repeat(1000))).toEqual({ count: 0, bytes: 0 });
    // A hex dump is encoded bytes too (16 characters of two classes).
    const hex = Buffer.from(bytes).toString('hex').toUpperCase();
    expect(base64Runs(hex).count).toBe(1);
  });

  it('stays linear on runs just short of a payload', () => {
    const s = `${'a'.repeat(1023)} `.repeat(20_000); // 20 MB of near-misses
    const t0 = performance.now();
    expect(base64Runs(s).count).toBe(0);
    // Generous: a linear pass takes tens of ms; the quadratic regex took minutes.
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
