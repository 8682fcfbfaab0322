import { describe, expect, it } from 'vitest';
import { parseChannelPayload } from './host-api.js';

describe('trace channel schemas', () => {
  it('accepts the documented payloads', () => {
    expect(parseChannelPayload('session:record', { sessionId: 's1', record: true }).ok).toBe(true);
    expect(
      parseChannelPayload('session:record', { sessionId: 's1', record: true, path: '/t/a.jsonl' })
        .ok,
    ).toBe(true);
    expect(parseChannelPayload('trace:open', { path: '/t/a.jsonl' }).ok).toBe(true);
    expect(parseChannelPayload('trace:seek', { traceId: 'trace-1', t: 12.5 }).ok).toBe(true);
    expect(parseChannelPayload('trace:export', { traceId: 'trace-1', format: 'md' }).ok).toBe(true);
    expect(parseChannelPayload('trace:export', { sessionId: 's1', format: 'perfetto' }).ok).toBe(
      true,
    );
    const replay = parseChannelPayload('trace:replay', { traceId: 'trace-1', command: 'node' });
    expect(replay).toMatchObject({ ok: true, value: { args: [], timing: 'fast' } });
    const chunk = { uploadId: 'abcdefgh12', seq: 0, chunkBase64: 'e30K', done: true };
    expect(parseChannelPayload('trace:upload', chunk).ok).toBe(true);
  });

  it('refuses what the host must not act on', () => {
    const bad: [Parameters<typeof parseChannelPayload>[0], unknown][] = [
      ['session:record', { sessionId: 's1' }],
      ['trace:open', { path: '' }],
      ['trace:seek', { traceId: 'trace-1', t: -1 }],
      ['trace:seek', { traceId: 'trace-1', t: Number.NaN }],
      ['trace:export', { format: 'md' }],
      ['trace:export', { traceId: 'a', sessionId: 'b', format: 'md' }],
      ['trace:export', { traceId: 'a', format: 'pdf' }],
      ['trace:upload', { uploadId: 'short', seq: 0, done: true }],
      ['trace:upload', { uploadId: '../../etc/x', seq: 0, done: true }],
      [
        'trace:upload',
        { uploadId: 'abcdefgh12', seq: 0, text: 'a', chunkBase64: 'YQ==', done: true },
      ],
      [
        'trace:upload',
        { uploadId: 'abcdefgh12', seq: 0, chunkBase64: 'A'.repeat(1_400_000), done: false },
      ],
      ['trace:replay', { traceId: 'trace-1', command: '' }],
    ];
    for (const [channel, payload] of bad) {
      expect(
        parseChannelPayload(channel, payload),
        `${channel} ${JSON.stringify(payload).slice(0, 80)}`,
      ).toMatchObject({ ok: false, error: { code: 'EINVAL' } });
    }
  });
});
