/**
 * Every demo scenario, through the real engine and a real server process, must show the
 * symptoms its catalog entry promises. The catalog is the specification: this test reads it,
 * so the two cannot drift.
 */
import { describe, expect, it } from 'vitest';
import { demoProbeOptions } from '../../dist/electron/cli/demo.js';
import { runProbe } from '../../dist/electron/cli/probe.js';
import { DEMO_CATALOG } from '../../dist/electron/demo-servers/catalog.js';

const PROCESS_CODES = [
  'server-output-buffered',
  'subprocess-blocked',
  'server-busy',
  'handshake-failed',
] as const;

describe('demo catalog scenarios (probe recipe → expected symptoms)', () => {
  it('covers every catalog entry', () => {
    expect(DEMO_CATALOG.length).toBe(18);
  });

  for (const scenario of DEMO_CATALOG) {
    const budget = (scenario.probe.timeoutMs ?? 30_000) + 15_000;
    it(`${scenario.id}: ${scenario.expected.findings.join(', ') || 'no findings'}`, {
      timeout: budget,
    }, async () => {
      const outcome = await runProbe(demoProbeOptions(scenario.id, {}, {}));
      const { report } = outcome;
      expect(outcome.startError).toBeNull();
      const codes = report.findings.map((f) => f.code);
      for (const code of scenario.expected.findings)
        expect(codes, `finding ${code}`).toContain(code);
      for (const code of scenario.expected.absentFindings ?? []) {
        expect(codes, `finding ${code} must be absent`).not.toContain(code);
      }
      // The process evidence codes (issue 19) fire only where the catalog expects them.
      for (const code of PROCESS_CODES) {
        if (scenario.expected.findings.includes(code)) continue;
        expect(codes, `process finding ${code} must be absent`).not.toContain(code);
      }
      for (const metric of scenario.expected.metrics) {
        expect(report.metrics[metric], `metric ${metric}`).toBeGreaterThan(0);
      }
      if (scenario.expected.requestStatus && scenario.probe.call) {
        const call = report.requests.find((r) => r.method === 'tools/call');
        expect(call?.status, 'status of the tools/call').toBe(scenario.expected.requestStatus);
      }
      if (scenario.expected.exit) {
        const want = scenario.expected.exit;
        if (want.code !== undefined) expect(report.server.exit?.code).toBe(want.code);
        if (want.signal !== undefined) expect(report.server.exit?.signal).toBe(want.signal);
      }
      // The byte invariant of DESIGN.md holds in every report.
      const c = outcome.counters;
      expect(c).not.toBeNull();
      expect(c?.stdoutBytes).toBe((c?.lineBytes ?? 0) + (c?.partialBytesAtEof ?? 0));
      expect(report.metrics.stdoutBytes).toBe(c?.stdoutBytes);
      // Exit status follows the findings (DESIGN.md).
      expect(outcome.exitCode).toBe(report.findings.some((f) => f.level === 'error') ? 1 : 0);
    });
  }
});
