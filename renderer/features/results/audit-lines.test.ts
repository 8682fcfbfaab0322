import { describe, expect, it } from 'vitest';
import { auditResult, bytesOnlyAudit } from '../../../shared/result-audit';
import { MIB } from '../../../shared/units';
import { auditLines, hostsVerdict } from './audit-lines';

const byKey = (lines: ReturnType<typeof auditLines>) => new Map(lines.map((l) => [l.key, l]));

describe('auditLines', () => {
  it('a small, clean answer: sizes, blocks, tokens said to be estimated, nothing flagged', () => {
    const a = auditResult('tools/call', { content: [{ type: 'text', text: 'hello world!' }] }, 80);
    const l = byKey(auditLines(a));
    expect(l.get('bytes')?.value).toBe('80 B (80 bytes)');
    expect(l.get('blocks')?.value).toBe('1 text (12 B)');
    expect(l.get('tokens')?.value).toContain('≈ 3 tokens (estimated');
    expect(l.get('is-error')).toMatchObject({ value: 'false', tone: undefined });
    expect(l.get('structured')?.value).toBe('none');
    expect([...l.values()].filter((x) => x.tone === 'warn' || x.tone === 'error')).toEqual([]);
    expect(l.has('largest')).toBe(false);
    expect(l.has('partial')).toBe(false);
  });

  it('flags isError, duplicated text, base64 in text and says when it is incomplete', () => {
    const long = 'x'.repeat(300);
    const a = auditResult(
      'tools/call',
      {
        content: [
          { type: 'text', text: long },
          { type: 'text', text: `data:image/png;base64,${'A'.repeat(2048)}` },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
        structuredContent: { body: long, truncated: true },
        isError: true,
      },
      5000,
    );
    const l = byKey(auditLines(a));
    expect(l.get('is-error')?.tone).toBe('error');
    expect(l.get('duplicated')).toMatchObject({ tone: 'warn' });
    expect(l.get('duplicated')?.value).toContain('300 B');
    expect(l.get('base64')?.tone).toBe('warn');
    expect(l.get('incomplete')?.value).toContain('structuredContent.truncated');
    expect(l.get('blocks')?.value).toMatch(/^2 text \(.*\), 1 image \(4 B\)$/);
    expect(l.get('largest')?.value).toMatch(/^text, /);
  });

  it('a partial audit shows its reason and estimates tokens from bytes, saying so', () => {
    const a = bytesOnlyAudit('tools/call', 8 * MIB, 'over the audit bound');
    const l = byKey(auditLines(a));
    expect(l.get('partial')).toMatchObject({
      tone: 'warn',
      value: 'size only: over the audit bound',
    });
    expect(l.get('tokens')?.value).toContain('estimated from its bytes');
    expect(l.has('blocks')).toBe(false);
    expect(l.has('duplicated')).toBe(false);
  });
});

describe('hostsVerdict', () => {
  it('names the hosts a large answer breaks, with their source status', () => {
    const v = hostsVerdict(bytesOnlyAudit('tools/call', 40 * MIB, 'large'));
    const ids = v.broken.map((b) => b.host);
    expect(ids).toContain('ts-sdk');
    expect(ids).toContain('claude-desktop');
    expect(v.broken.find((b) => b.host === 'ts-sdk')?.status).toBe('package');
    expect(v.broken.every((b) => b.why.length > 0)).toBe(true);
  });

  it('breaks nothing for a small answer and lists the hosts with no known limit', () => {
    const v = hostsVerdict(auditResult('tools/call', { content: [] }, 100));
    expect(v.broken).toEqual([]);
    expect(v.unknown).toContain('Cursor');
    expect(v.unknown).not.toContain('TypeScript SDK client');
  });
});
