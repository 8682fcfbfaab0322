/**
 * `pipescope check` of every bundled demo server, through the real CLI (real processes, real
 * pipes): each fails exactly the cases its catalog entry predicts (`check.failed`), skips
 * exactly `check.skipped`, passes the rest, exits 1 iff a case failed, writes a JUnit file
 * that a real XML parser reads as the common JUnit schema, and leaves no server behind. The
 * healthy demo's whole check runs first, alone, and must take under 20 s (issue 23).
 *
 * The demos run a few at a time (PIPESCOPE_CHECK_JOBS, default 3): their cases mostly wait
 * (a paused reader, a watch after a cancellation, a stop ladder), and each runs in its own CLI
 * process, so one's main thread never delays another's verdicts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '../../dist/electron/demo-servers/catalog.js';
import { CHECK_CASE_IDS, type CheckReport } from '../../dist/shared/check-report.js';
import type { DemoScenario } from '../../dist/shared/demo-catalog.js';
import { junitProblems } from '../fixtures/junit-schema.js';
import { groupMembers, running } from '../fixtures/processes.js';
import { expectNothingLeftBehind, runCli } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-check-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  expectNothingLeftBehind();
});

/** At most `n` at once. */
function limiter(n: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    while (active >= n) await new Promise<void>((r) => waiting.push(r));
    active += 1;
    try {
      return await job();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
const slot = limiter(Math.max(1, Number(process.env.PIPESCOPE_CHECK_JOBS ?? 3)));

interface Checked {
  report: CheckReport;
  code: number | null;
  ms: number;
  junit: string;
}

async function check(id: string): Promise<Checked> {
  const junit = path.join(dir, `${id}.xml`);
  const r = await runCli(['check', '--demo', id, '--json', '--junit', junit], 170_000);
  expect(r.stderr, 'nothing on stderr').toBe('');
  return { report: JSON.parse(r.stdout) as CheckReport, code: r.code, ms: r.ms, junit };
}

function expectPrediction(s: DemoScenario, { report, code, junit }: Checked): void {
  const want = s.check;
  expect(want, `${s.id} has a check prediction in the catalog`).toBeDefined();
  if (!want) return;
  const failed = report.cases.filter((c) => c.status === 'failed');
  const skipped = report.cases.filter((c) => c.status === 'skipped');
  const explain = report.cases.map((c) => `${c.status} ${c.id}: ${c.reason}`).join('\n');
  expect(
    failed.map((c) => c.id),
    explain,
  ).toEqual(want.failed);
  expect(
    skipped.map((c) => c.id),
    explain,
  ).toEqual(want.skipped);
  expect(report.cases.map((c) => c.id)).toEqual([...CHECK_CASE_IDS]);
  for (const c of report.cases) expect(c.reason.length, `${c.id} says why`).toBeGreaterThan(10);
  expect(code).toBe(want.failed.length > 0 ? 1 : 0);
  expect(report.exitCode).toBe(code);
  // Every server the battery ran is gone, with its process group.
  expect(report.runs.length).toBeGreaterThan(1);
  for (const run of report.runs) {
    expect(run.pid, `a ${run.case} server started`).not.toBeNull();
    if (run.pid === null) continue;
    expect(running(run.pid), `${run.case} server ${run.pid} still running`).toBe(false);
    expect(groupMembers(run.pid).map((p) => p.pid)).toEqual([]);
  }
  const xml = readFileSync(junit, 'utf8');
  expect(junitProblems(xml)).toEqual([]);
  expect(xml.match(/<testcase /g)?.length).toBe(CHECK_CASE_IDS.length);
  expect(xml.match(/<failure /g)?.length ?? 0).toBe(want.failed.length);
  expect(xml.match(/<skipped /g)?.length ?? 0).toBe(want.skipped.length);
}

describe('pipescope check: the healthy demo, alone', () => {
  it('passes every case that can run, in under 20 s', { timeout: 60_000 }, async () => {
    const healthy = DEMO_CATALOG.find((s) => s.id === 'healthy') as DemoScenario;
    const r = await check('healthy');
    expectPrediction(healthy, r);
    expect(r.report.summary.passed).toBe(CHECK_CASE_IDS.length - 3);
    // The whole check, CLI start to exit (issue 23: under 20 s).
    expect(r.ms).toBeLessThan(20_000);
    process.stdout.write(
      `[check] healthy: ${(r.ms / 1000).toFixed(1)} s (battery ${(r.report.durationMs / 1000).toFixed(1)} s)\n`,
    );
  });
});

describe.concurrent('pipescope check of every other bundled demo', () => {
  it('the catalog predicts a check for every demo, over known cases', () => {
    expect(DEMO_CATALOG.length).toBe(18);
    for (const s of DEMO_CATALOG) {
      expect(s.check, s.id).toBeDefined();
      for (const id of [...(s.check?.failed ?? []), ...(s.check?.skipped ?? [])])
        expect(CHECK_CASE_IDS, `${s.id}: ${id}`).toContain(id);
      expect(s.check?.why.length, s.id).toBeGreaterThan(20);
    }
  });

  for (const s of DEMO_CATALOG.filter((x) => x.id !== 'healthy')) {
    const fails = s.check?.failed.join(', ') || 'nothing';
    it(`${s.id}: fails ${fails}`, { timeout: 400_000 }, async () => {
      const r = await slot(() => check(s.id));
      expectPrediction(s, r);
    });
  }
});
