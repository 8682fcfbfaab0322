/**
 * Trace commands end to end on real processes: `probe --trace` → `report` gives the live
 * report exactly (from `end`, and rebuilt from the events when `end` is cut off), unreadable
 * traces and unwritable trace paths, `record` until SIGTERM or the server's exit, `export`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import type { ChromeTraceEvent } from '../../dist/electron/engine/trace/export/perfetto.js';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import type { TraceEvent } from '../../dist/shared/trace-format.js';
import {
  CLI,
  expectNothingLeftBehind,
  REPO,
  REPORT_KEYS,
  recordedPids,
  runCli,
  waitFor,
  withTimeout,
} from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-trace-cli-'));
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  expectNothingLeftBehind();
});

function events(file: string): TraceEvent[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1)
    .map((l) => JSON.parse(l) as TraceEvent);
}

describe('probe --trace → report', () => {
  it.each(['healthy', 'stdout-pollution', 'ignores-cancel'])(
    '%s: report equals the live report, with and without the end record',
    async (demo) => {
      const file = path.join(tmp, `${demo}.jsonl`);
      const live = await runCli(['probe', '--demo', demo, '--trace', file, '--json']);
      expect(live.stderr).toBe('');
      const fromTrace = await runCli(['report', file, '--json']);
      expect(fromTrace.stdout).toBe(live.stdout);
      expect(fromTrace.code).toBe(live.code);
      expect(fromTrace.stderr).toBe('');

      const lines = readFileSync(file, 'utf8').split('\n');
      const noEnd = path.join(tmp, `${demo}-noend.jsonl`);
      writeFileSync(noEnd, lines.filter((l) => !l.includes('"type":"end"')).join('\n'));
      const rebuilt = await runCli(['report', noEnd, '--json']);
      expect(rebuilt.stdout).toBe(live.stdout);
      expect(rebuilt.code).toBe(live.code);
      expect(rebuilt.stderr).toMatch(/no end record .* rebuilt from its events/);

      const human = await runCli(['report', file]);
      expect(human.code).toBe(live.code);
      expect(human.stdout).toMatch(/^pipescope report: .*\n[\s\S]*Requests[\s\S]*Findings/);
    },
  );

  it('a server that could not start: the trace reports it, exit 2 both times', async () => {
    const file = path.join(tmp, 'nostart.jsonl');
    const live = await runCli(['probe', '--trace', file, '--json', '--', '/no/such/command']);
    expect(live.code).toBe(2);
    const r = await runCli(['report', file, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(live.stdout);
    expect(r.stderr).toMatch(/command not found \(ENOENT\)/);
  });

  it('a missing command is said once, in the text report or on stderr with --json', async () => {
    const text = await runCli(['probe', '--', '/no/such/command']);
    expect(text.code).toBe(2);
    const both = text.stdout + text.stderr;
    expect(both.match(/command not found \(ENOENT\)/g)).toHaveLength(1);
    const json = await runCli(['probe', '--json', '--', '/no/such/command']);
    expect(json.stderr.match(/command not found \(ENOENT\)/g)).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toHaveProperty('findings');
  });

  it('a trace cut mid-file (a crash) still reports', async () => {
    const file = path.join(tmp, 'cut.jsonl');
    await runCli(['probe', '--demo', 'healthy', '--trace', file]);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = await runCli(['report', file, '--json']);
    expect([0, 1]).toContain(r.code);
    expect(Object.keys(JSON.parse(r.stdout) as ProbeReport).sort()).toEqual(REPORT_KEYS);
    expect(r.stderr).toMatch(/no end record/);
  });

  it('an unreadable trace is one line and exit 2', async () => {
    const garbage = path.join(tmp, 'garbage.jsonl');
    writeFileSync(garbage, 'hello\n');
    for (const file of [garbage, path.join(tmp, 'missing.jsonl')]) {
      const r = await runCli(['report', file]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a damaged line (cut, or a null where an object must be) is skipped and counted: report, export, replay', async () => {
    const file = path.join(tmp, 'damaged-source.jsonl');
    await runCli(['probe', '--demo', 'healthy', '--trace', file]);
    const lines = readFileSync(file, 'utf8').split('\n');
    // A request line (every reader reads those): which line is in the middle varies per run.
    const requests = lines.flatMap((l, i) => (l.includes('"type":"request"') ? [i] : []));
    const mid = requests[Math.floor(requests.length / 2)];
    lines[mid] = lines[mid].slice(0, Math.floor(lines[mid].length / 2));
    lines.splice(3, 0, '{"t":4,"type":"request","record":null}');
    const damaged = path.join(tmp, 'damaged.jsonl');
    writeFileSync(damaged, lines.join('\n'));
    const skipped = /^pipescope: 2 unreadable line\(s\) skipped \(the trace is cut or damaged\)$/m;
    const report = await runCli(['report', damaged, '--json']);
    expect(report.code).toBe(0);
    expect(Object.keys(JSON.parse(report.stdout) as ProbeReport).sort()).toEqual(REPORT_KEYS);
    expect(report.stderr).toMatch(skipped);
    const md = await runCli(['export', damaged, '--format', 'md']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('#');
    expect(md.stderr).toMatch(skipped);
    const healthy = demoCommand('healthy');
    const replay = await runCli(['replay', damaged, '--', healthy.command, ...healthy.args]);
    expect([0, 1]).toContain(replay.code);
    expect(replay.stderr).toMatch(skipped);
    expect(replay.stderr).not.toMatch(/internal error/);
  });

  it.runIf(process.platform === 'linux')(
    'what is not a regular file is refused at once: a device, a FIFO, a directory',
    async () => {
      const fifo = path.join(tmp, 'fifo');
      spawnSync('mkfifo', [fifo]);
      for (const [file, what] of [
        ['/dev/zero', 'a device'],
        [fifo, 'a FIFO'],
        [tmp, 'a directory'],
      ]) {
        const r = await runCli(['report', file], 10_000);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`${file} is ${what}`);
        expect(r.ms).toBeLessThan(5000);
      }
    },
  );

  it.each([
    [path.join(tmp, 'no', 'dir', 't.jsonl'), /\(ENOENT\)/],
    ['/dev/full', /\(ENOSPC\)/],
  ])('probe --trace %s: the error is reported, the report is unchanged', async (file, code) => {
    const r = await runCli(['probe', '--demo', 'healthy', '--trace', file, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^pipescope: trace: cannot write .*the session goes on\n$/);
    expect(r.stderr).toMatch(code);
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(report.requests.map((q) => q.status)).toEqual(['completed', 'completed', 'completed']);
    expect(report.findings).toEqual([]);
  });
});

/** `pipescope record …` as a child we can signal. */
function spawnRecord(args: string[]): {
  child: ReturnType<typeof spawn>;
  closed: Promise<number | null>;
  stdout(): string;
  stderr(): string;
} {
  const child = spawn(process.execPath, [CLI, 'record', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) recordedPids.add(child.pid);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return { child, closed, stdout: () => out, stderr: () => err };
}

describe('record', () => {
  it('records until SIGTERM, then stops through the ladder and writes end', async () => {
    const file = path.join(tmp, 'record.jsonl');
    const { command, args } = demoCommand('healthy');
    const rec = spawnRecord(['--trace', file, '--json', '--', command, ...args]);
    await waitFor(() => rec.stderr().includes('recording'), 10_000, 'the recording line');
    await waitFor(
      () => {
        try {
          return readFileSync(file, 'utf8').includes('"method":"tools/list","status":"completed"');
        } catch {
          return false;
        }
      },
      5000,
      'tools/list in the trace (flushed while running)',
    );
    rec.child.kill('SIGTERM');
    expect(await withTimeout(rec.closed, 10_000, 'record to exit')).toBe(0);
    const ev = events(file);
    expect(ev.at(-1)?.type).toBe('end');
    expect(ev.some((e) => e.type === 'exit')).toBe(true);
    const report = JSON.parse(rec.stdout()) as ProbeReport;
    expect(report.findings).toEqual([]);
    const again = await runCli(['report', file, '--json']);
    expect(again.stdout).toBe(rec.stdout());
  });

  it('Ctrl-C during a handshake that never answers stops at once', async () => {
    const file = path.join(tmp, 'silent.jsonl');
    const silent = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    const rec = spawnRecord(['--trace', file, '--timeout-ms', '60000', '--', ...silent]);
    await waitFor(() => rec.stderr().includes('recording'), 10_000, 'the recording line');
    const sent = Date.now();
    rec.child.kill('SIGINT');
    await withTimeout(rec.closed, 8000, 'record to exit after SIGINT');
    expect(Date.now() - sent).toBeLessThan(6000);
    expect(rec.stdout()).toMatch(/stopped: SIGINT received/);
    expect(events(file).at(-1)?.type).toBe('end');
  });

  it('stops when the server exits on its own', async () => {
    const file = path.join(tmp, 'exits.jsonl');
    const r = await runCli([
      'record',
      '--trace',
      file,
      '--json',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => process.exit(3), 200)',
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(report.server.exit).toEqual({ code: 3, signal: null });
    expect(report.findings.map((f) => f.code)).toContain('server-exited');
    const ev = events(file);
    expect(ev.find((e) => e.type === 'exit')).toMatchObject({ code: 3 });
    expect(ev.at(-1)?.type).toBe('end');
  });
});

describe('export', () => {
  it('perfetto, html and md from a recorded trace', async () => {
    const file = path.join(tmp, 'export.jsonl');
    await runCli(['probe', '--demo', 'ignores-cancel', '--trace', file]);
    const out = path.join(tmp, 'export.perfetto.json');
    const p = await runCli(['export', file, '--format', 'perfetto', '-o', out]);
    expect(p.code).toBe(0);
    const trace = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: ChromeTraceEvent[] };
    for (const e of trace.traceEvents) {
      expect(Object.keys(e)).toEqual(expect.arrayContaining(['name', 'ph', 'ts', 'pid', 'tid']));
    }
    const phases = new Set(trace.traceEvents.map((e) => e.ph));
    expect([...phases].sort()).toEqual(['C', 'M', 'X', 'i']);
    expect(trace.traceEvents.some((e) => e.ph === 'i' && e.name.startsWith('cancel #'))).toBe(true);

    const html = await runCli(['export', file, '--format', 'html']);
    expect(html.code).toBe(0);
    expect(html.stdout).toMatch(/^<!doctype html>[\s\S]*<svg [\s\S]*<\/html>\n$/);
    expect(html.stdout).not.toMatch(/\ssrc=|\shref=|<link|<script/);
    const md = await runCli(['export', file, '--format', 'md']);
    expect(md.stdout).toMatch(/^# Incident report[\s\S]*cancel-ignored[\s\S]*data:image\/svg\+xml/);
    const bad = await runCli(['export', file, '--format', 'pdf']);
    expect(bad.code).toBe(2);
  });
});
