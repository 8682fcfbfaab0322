import { describe, expect, it } from 'vitest';
import { HOST_PROFILES } from '../../shared/host-profiles.js';
import { auditResult, bytesOnlyAudit } from '../../shared/result-audit.js';
import { overBudgetMessage } from '../engine/session/result-auditor.js';
import { formatHosts } from './hosts.js';

describe('pipescope hosts', () => {
  it('prints one row per profile and every source, unknowns as unknown', () => {
    const text = formatHosts();
    const rows = text.split('\n').slice(2, 2 + HOST_PROFILES.length);
    expect(rows.map((r) => r.split(/\s{2,}/)[0])).toEqual(HOST_PROFILES.map((p) => p.id));
    expect(rows[0]).toMatch(
      /ts-sdk\s+TypeScript SDK client\s+10 MiB, then closes \(package\)\s+1 min \(package\)\s+none known/,
    );
    expect(rows.find((r) => r.startsWith('claude-desktop'))).toMatch(
      /unknown\s+1 min \(reported\)\s+1 MiB \(reported\)/,
    );
    for (const p of HOST_PROFILES) {
      for (const s of [p.transportCap, p.requestTimeout, p.resultLimit, ...p.notes]) {
        if (s) expect(text).toContain(`source (${s.status}): ${s.source}`);
      }
    }
  });
});

describe('result-over-budget message', () => {
  const rec = { id: 3, method: 'tools/call' };
  it('names the hosts, the budget, and whether it says it is incomplete', () => {
    const m = overBudgetMessage(
      rec,
      bytesOnlyAudit('tools/call', 42 * 1024 * 1024, 'x'),
      1024 * 1024,
    );
    expect(m).toMatch(
      /^tools\/call 3 answered 42 MiB, over the 1 MiB result budget; it breaks TypeScript SDK client \(a line over 10 MiB/,
    );
    expect(m).toMatch(/Claude Desktop \(a result over 1 MiB.*reported\)/);
    expect(m).toMatch(/does not say it is incomplete/);
  });

  it('is null within every limit, and says so when only a host breaks', () => {
    const small = auditResult('tools/call', { content: [{ type: 'text', text: 'ok' }] }, 60);
    expect(overBudgetMessage(rec, small, 1024 * 1024)).toBeNull();
    const paged = auditResult(
      'tools/call',
      { content: [{ type: 'text', text: 'z'.repeat(200_000) }], nextCursor: 'n2' },
      200_100,
    );
    const m = overBudgetMessage(rec, paged, 1024 * 1024);
    expect(m).not.toMatch(/result budget/);
    expect(m).toMatch(/it breaks Claude Code \(≈50,000 tokens/);
    expect(m).toMatch(/it says it is incomplete \(nextCursor\)/);
  });
});
