/**
 * stderr at any rate, for any duration, keeps memory bounded (HARDENING.md 6, issue 18): the
 * worker reads every byte, hands main at most what main takes (credits), keeps the newest
 * megabyte while main is behind, and counts what it dropped. Measured on real processes: the
 * CLI's resident memory while a server writes stderr as fast as the pipe takes it.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import { processTable } from '../fixtures/processes.js';
import { expectNothingLeftBehind, runCli, stopAllSessions } from './helpers.js';

afterEach(stopAllSessions);

/** Peak resident memory of the newest `pipescope probe` process while `run` lasts. */
async function peakRssOfProbe<T>(run: Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      for (const p of processTable()) {
        if (p.ppid !== process.pid || !p.args.includes('pipescope.js probe')) continue;
        try {
          const kb = Number(
            /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1],
          );
          if (kb > peak) peak = kb;
        } catch {
          // exited between the two reads
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    return { value: await run, peakMb: Math.round(peak / 1024) };
  } finally {
    done = true;
    await sampling;
  }
}

describe('a stderr flood', () => {
  it.runIf(process.platform === 'linux')(
    'at full speed for 6 s: the probe stays under 400 MB and says what it dropped',
    async () => {
      const { value: r, peakMb } = await peakRssOfProbe(
        runCli(
          ['probe', '--json', '--timeout-ms', '6000', '--', 'sh', '-c', 'exec cat /dev/zero >&2'],
          30_000,
        ),
      );
      const report = JSON.parse(r.stdout) as ProbeReport;
      console.log(
        `[stderr-flood] ${(report.metrics.stderrBytes / 2 ** 30).toFixed(1)} GiB of stderr in 6 s, peak RSS ${peakMb} MB`,
      );
      expect(peakMb).toBeGreaterThan(0);
      expect(peakMb).toBeLessThan(400);
      expect(report.metrics.stderrBytes).toBeGreaterThan(256 * 2 ** 20);
      const dropped = report.findings.find((f) => f.code === 'stderr-dropped');
      expect(dropped?.message).toMatch(/read faster than the host took them/);
    },
    40_000,
  );

  it('the stderr-flood demo writes 1.2 GB when asked (it built one string and died at 1 GB)', async () => {
    const r = await runCli(
      [
        'probe',
        '--json',
        '--timeout-ms',
        '25000',
        '--demo',
        'stderr-flood',
        '--demo-arg',
        'bytes=0',
        '--call',
        'flood',
        '--args',
        '{"bytes":1200000000}',
      ],
      40_000,
    );
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(report.requests.find((q) => q.method === 'tools/call')?.status).toBe('completed');
    expect(report.metrics.stderrBytes).toBeGreaterThanOrEqual(1_200_000_000);
    expect(report.findings.map((f) => f.code)).not.toContain('server-exited');
  }, 45_000);

  it('leaves no server, process group or child process behind', () => {
    expectNothingLeftBehind();
  });
});
