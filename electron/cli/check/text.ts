/**
 * The check report written for people: the server, the tools called, then one line a case —
 * ✓ passed, ✗ failed, – skipped — with its reason, and the count at the end.
 */
import type { CheckReport, CheckStatus } from '../../../shared/check-report.js';

const MARK: Record<CheckStatus, string> = { passed: '✓', failed: '✗', skipped: '–' };

export function formatCheckText(r: CheckReport): string {
  const cmd = [r.server.command, ...r.server.args].map((a) =>
    /\s/.test(a) ? JSON.stringify(a) : a,
  );
  const lines = [`pipescope check: ${cmd.join(' ')}`];
  if (r.serverInfo) {
    const i = r.serverInfo;
    lines.push(`  server ${i.name} ${i.version} (protocol ${i.protocolVersion})`);
  }
  if (r.tools.length > 0) {
    const named = r.tools.map((t) =>
      t.roles.length ? `${t.name} (${t.roles.join(', ')})` : t.name,
    );
    lines.push(`  tools called: ${named.join(', ')}`);
  }
  if (r.notCalled.length > 0) {
    const shown = r.notCalled.slice(0, 6).map((n) => `${n.name} (${n.why})`);
    const more = r.notCalled.length > 6 ? `, and ${r.notCalled.length - 6} more` : '';
    lines.push(`  not called: ${shown.join(', ')}${more}`);
  }
  lines.push('');
  const width = Math.max(...r.cases.map((c) => c.id.length));
  for (const c of r.cases) {
    lines.push(`  ${MARK[c.status]} ${c.id.padEnd(width)}  ${c.reason}`);
  }
  const s = r.summary;
  lines.push(
    '',
    `${s.cases} cases: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped in ${(r.durationMs / 1000).toFixed(1)} s`,
  );
  return `${lines.join('\n')}\n`;
}
