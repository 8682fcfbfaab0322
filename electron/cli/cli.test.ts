import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { FINDING_EXPLANATIONS } from '../../shared/findings.js';
import type { ProbeReport } from '../../shared/probe-report.js';
import { findDemo } from '../demo-servers/catalog.js';
import {
  DemoError,
  demoListJson,
  demoProbeOptions,
  formatDemoList,
  parseDemoArgs,
} from './demo.js';
import { buildProgram, main, parseCallArgs } from './main.js';
import type { ProbeOutcome } from './probe.js';
import { formatReportText } from './report-text.js';

const MiB = 1024 * 1024;

/** Captures process.stdout / process.stderr writes while `fn` runs. */
async function captured<T>(fn: () => Promise<T>): Promise<{ value: T; out: string; err: string }> {
  let out = '';
  let err = '';
  const toText = (chunk: unknown): string =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += toText(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    err += toText(chunk);
    return true;
  });
  try {
    const value = await fn();
    return { value, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => {
  // No test may leave an exit code behind (main() reads it on success).
  expect(process.exitCode).toBeUndefined();
});

describe('parseCallArgs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('parses a JSON object', () => {
    expect(parseCallArgs('{"query":"item","n":2}')).toEqual({ query: 'item', n: 2 });
    expect(parseCallArgs('{}')).toEqual({});
  });

  it('reads @file', () => {
    const file = path.join(dir, 'args.json');
    writeFileSync(file, '{"text":"from file"}');
    expect(parseCallArgs(`@${file}`)).toEqual({ text: 'from file' });
  });

  it('rejects a missing @file with a clear message', () => {
    expect(() => parseCallArgs(`@${path.join(dir, 'nope.json')}`)).toThrow(/--args: cannot read/);
  });

  it('rejects invalid JSON', () => {
    expect(() => parseCallArgs('{query: item}')).toThrow(/--args is not valid JSON/);
    expect(() => parseCallArgs('')).toThrow(/not valid JSON/);
  });

  it.each(['[1,2]', 'null', '42', '"text"', 'true'])('rejects a non-object: %s', (text) => {
    expect(() => parseCallArgs(text)).toThrow('--args must be a JSON object');
  });

  it('does not pollute Object.prototype with __proto__ keys', () => {
    const v = parseCallArgs('{"__proto__":{"polluted":"yes"},"a":1}');
    expect(v.a).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseDemoArgs', () => {
  it('parses name=value pairs, keeping = in values and the last duplicate', () => {
    expect(parseDemoArgs(['bytes=100', 'expr=a=b', 'empty=', 'bytes=200'])).toEqual({
      bytes: '200',
      expr: 'a=b',
      empty: '',
    });
    expect(parseDemoArgs([])).toEqual({});
  });

  it.each(['novalue', '=value', ''])('rejects %j', (pair) => {
    expect(() => parseDemoArgs([pair])).toThrow(DemoError);
    expect(() => parseDemoArgs([pair])).toThrow(/--demo-arg takes name=value/);
  });
});

describe('demoProbeOptions', () => {
  it('runs the catalog recipe when no flag is given', () => {
    const o = demoProbeOptions('healthy', {}, {});
    expect(o.command).toBe(process.execPath);
    expect(path.basename(o.args[0])).toBe('healthy.js');
    expect(o.args).toHaveLength(1);
    expect(o).toMatchObject({
      call: 'search',
      callArgs: { query: 'item' },
      timeoutMs: 5000,
      reader: 'drain',
      consumerDelayMs: 0,
    });
    // No policy of its own: the session's default (discard), or a --host profile's.
    expect(o.onOversize).toBeUndefined();
    expect(o.cancelAfterMs).toBeUndefined();
    expect(o.maxFrameBytes).toBeUndefined();
  });

  it('takes the reader and timeout of the recipe', () => {
    const o = demoProbeOptions('oversized-result', {}, {});
    expect(o.reader).toBe('paused');
    expect(o.timeoutMs).toBe(3000);
    expect(o.call).toBe('dump');
  });

  it('lets explicit flags beat the recipe', () => {
    const explicit = {
      call: 'echo',
      callArgs: { text: 'x' },
      reader: 'drain',
      timeoutMs: 1234,
      consumerDelayMs: 7,
      onOversize: 'terminate',
      maxFrameBytes: 4096,
      cancelAfterMs: 50,
      cancelAfterBytes: 99,
    } as const;
    expect(demoProbeOptions('oversized-result', {}, explicit)).toMatchObject(explicit);
  });

  it('an explicit 0 beats a non-zero recipe value', () => {
    const recipe = findDemo('slow-producer')?.probe;
    expect(recipe?.cancelAfterMs).toBe(500);
    expect(demoProbeOptions('slow-producer', {}, {}).cancelAfterMs).toBe(500);
    expect(demoProbeOptions('slow-producer', {}, { cancelAfterMs: 0 }).cancelAfterMs).toBe(0);
  });

  it('passes recipe knobs, and user knobs win over them', () => {
    const recipe = demoProbeOptions('subprocess-producer', {}, {});
    expect(recipe.args.slice(1)).toEqual(['--chunk-delay-ms=5']);
    const user = demoProbeOptions('subprocess-producer', { 'chunk-delay-ms': '9', keep: '10' }, {});
    expect(user.args.slice(1)).toEqual(['--chunk-delay-ms=9', '--keep=10']);
  });

  it('adds the pad argument of argsPadBytes without changing the catalog', () => {
    const o = demoProbeOptions('stops-reading-stdin', {}, {});
    expect(o.callArgs?.text).toBe('hello');
    expect(o.callArgs?.pad).toBe('x'.repeat(MiB));
    expect(findDemo('stops-reading-stdin')?.probe.args).toEqual({ text: 'hello' });
  });

  it('does not pad explicit --args', () => {
    const o = demoProbeOptions('stops-reading-stdin', {}, { callArgs: { text: 'mine' } });
    expect(o.callArgs).toEqual({ text: 'mine' });
  });

  it('rejects an unknown demo', () => {
    expect(() => demoProbeOptions('no-such-demo', {}, {})).toThrow(DemoError);
    expect(() => demoProbeOptions('no-such-demo', {}, {})).toThrow(/unknown demo "no-such-demo"/);
  });

  it('rejects an unknown knob', () => {
    expect(() => demoProbeOptions('healthy', { bogus: '1' }, {})).toThrow(DemoError);
    expect(() => demoProbeOptions('healthy', { bogus: '1' }, {})).toThrow(/no knob "bogus"/);
  });
});

describe('demo list', () => {
  it('lists every catalog entry with its expectations', () => {
    const text = formatDemoList();
    for (const s of demoListJson()) expect(text).toContain(s.id);
    expect(text).toMatch(/healthy\s+Healthy server/);
    expect(text).toContain('expect: no findings');
    expect(text).toContain('expect: server-write-blocked, request-timed-out');
    expect(text).toContain('check fails: nothing');
    expect(text).toContain('check fails: cancel-before-work, cancel-mid-output');
    expect(text).toContain('knobs: page-size=20');
  });

  it('shows the steps of each demo, numbered, and its lesson', () => {
    const text = formatDemoList(['oversized-result']);
    const demo = demoListJson(['oversized-result'])[0];
    expect(text).toMatch(/steps:\n\s+1\. Pause the reader, call dump/);
    expect(text).toMatch(/ 3\. Resume the reader/);
    expect(text.replace(/\s+/g, ' ')).toContain(demo.steps[4].replace(/\s+/g, ' '));
    expect(text.replace(/\s+/g, ' ')).toContain(demo.lesson.slice(0, 60));
    expect(text).not.toContain('healthy');
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(demoListJson(['oversized-result'])[0].steps.length).toBeGreaterThan(2);
    expect(() => demoListJson(['nope'])).toThrow(/unknown demo "nope"; the demos are: healthy/);
  });
});

function outcome(
  over: Partial<ProbeOutcome> = {},
  report: Partial<ProbeReport> = {},
): ProbeOutcome {
  const base: ProbeReport = {
    server: {
      command: 'node',
      args: ['my server.js', '--flag'],
      pid: 4242,
      exit: { code: 0, signal: null },
    },
    metrics: {
      stdoutBytes: 3 * MiB,
      stderrBytes: 2048,
      frames: 12,
      largestFrameBytes: 900,
      parseErrors: 2,
      oversizeFrames: 1,
      partialBytesAtEof: 17,
      dispatcherWaitMs: 12.5,
      dispatcherMaxDepth: 4,
      stdinBytes: 512,
      stdinWaitMs: 0,
      cancellationsSent: 1,
      lateResponses: 1,
      processExits: 1,
    },
    requests: [
      { id: 1, method: 'initialize', status: 'completed', latencyMs: 3.1, responseBytes: 180 },
      { id: 2, method: 'tools/call', status: 'late', latencyMs: 3000, responseBytes: 64 },
      { id: 3, method: 'ping', status: 'pending', latencyMs: null, responseBytes: null },
    ],
    recovery: { method: 'ping', ok: false, latencyMs: null },
    findings: [
      { code: 'stdout-pollution', level: 'error', message: 'banner on stdout' },
      { code: 'cancel-ignored', level: 'warn', message: 'request 2 answered late' },
    ],
    process: { available: true, samples: 10 },
    ...report,
  };
  return {
    report: base,
    exitCode: 1,
    startError: null,
    steps: ['spawned pid 4242', 'initialize ok'],
    stderrTail: ['short line', 'y'.repeat(300)],
    pollution: Array.from({ length: 7 }, (_, i) => ({
      t: i,
      offset: i * 100,
      bytes: 10,
      preview: `junk ${i}`,
      problem: 'not JSON',
    })),
    counters: null,
    ...over,
  };
}

describe('formatReportText', () => {
  it('prints the command, pipe counters, requests, findings, pollution and stderr', () => {
    const text = formatReportText(outcome());
    const lines = text.split('\n');
    expect(lines[0]).toBe('pipescope probe: node "my server.js" --flag');
    // Read from a trace, it says so.
    expect(formatReportText(outcome(), 'report').split('\n')[0]).toBe(
      'pipescope report: node "my server.js" --flag',
    );
    expect(lines[1]).toBe('  pid 4242, exit code 0');
    expect(text).toContain('  - spawned pid 4242');
    expect(text).toContain('stdout 3.00 MiB in 12 frame(s), largest 900 B; stderr 2.0 KiB');
    expect(text).toContain('parse errors 2, oversize 1, partial at EOF 17 B');
    expect(text).toContain('dispatcher wait 12.5 ms (max depth 4)');
    expect(text).not.toContain('dropped by the overload policy'); // none dropped: no line
    expect(text).toContain('cancellations sent 1, late responses 1, process exits 1');
    expect(text).toMatch(/ {3}2 tools\/call +late +3000 ms, 64 B/);
    expect(text).toMatch(/ {3}3 ping +pending +-\n/);
    expect(text).toContain('still pending at the end: 3');
    expect(text).toContain('Recovery: ping FAILED');
    expect(text).toContain('  [error] stdout-pollution: banner on stdout');
    expect(text).toContain(`      ${FINDING_EXPLANATIONS['cancel-ignored']}`);
    expect(text).toContain('  @400: "junk 4"');
    expect(text).not.toContain('junk 5');
    expect(text).toContain(`  ${'y'.repeat(200)}…`);
    expect(text).not.toContain('y'.repeat(201));
    expect(text.endsWith('\n')).toBe(true);
  });

  it('counts the frames the overload policy dropped', () => {
    const counters = { droppedFrames: 1234, droppedBytes: 5 * 1024 * 1024 };
    const text = formatReportText(
      outcome({ counters: counters as unknown as ReturnType<typeof outcome>['counters'] }),
    );
    expect(text).toContain('  dropped by the overload policy: 1234 frame(s), 5.00 MiB');
  });

  it('says when there are no findings, and shows a signal and a good recovery', () => {
    const text = formatReportText(
      outcome(
        { pollution: [], stderrTail: [] },
        {
          findings: [],
          server: { command: 'srv', args: [], pid: 1, exit: { code: null, signal: 'SIGKILL' } },
          recovery: { method: 'ping', ok: true, latencyMs: 1.2 },
        },
      ),
    );
    expect(text).toContain('killed by SIGKILL');
    expect(text).toContain('Findings: none');
    expect(text).toContain('Recovery: ping ok in 1.2 ms');
    expect(text).not.toContain('stdout pollution');
    expect(text).not.toContain('stderr (last lines)');
  });
});

describe('buildProgram', () => {
  it('rejects `probe --reader foo` as a usage error (before anything runs)', async () => {
    const { value, err } = await captured(async () => {
      try {
        await buildProgram().parseAsync(['probe', '--reader', 'foo', '--', 'node'], {
          from: 'user',
        });
        return null;
      } catch (e) {
        return e;
      }
    });
    expect(value).toBeInstanceOf(CommanderError);
    expect(value instanceof CommanderError && value.code).toBe('commander.invalidArgument');
    expect(err).toMatch(/foo/);
    expect(err).toMatch(/drain, paused, naive/);
  });
});

describe('tap --help', () => {
  // bin/pipescope.js sends `tap --help` to commander, not to the relay's own parser: the help
  // must still list every option the relay takes and where the server's command goes.
  it('lists the relay options and the `-- <command>` form, not only install/uninstall', async () => {
    const { value, out } = await captured(() => main(['tap', '--help']));
    expect(value).toBe(0);
    for (const flag of ['--name', '--host', '--trace', '--no-redact', '--no-publish']) {
      expect(out).toContain(flag);
    }
    expect(out).toContain('-- <command>');
    expect(out).toMatch(/install/);
  });
});

describe('main: usage errors exit 2 before any process is spawned', () => {
  it.each([
    [['probe', '--reader', 'foo', '--', 'node'], /foo/],
    [['probe', '--on-oversize', 'explode', '--', 'node'], /explode/],
    [['probe', '--timeout-ms', 'abc', '--', 'node'], /--timeout-ms must be a whole number/],
    [['probe', '--timeout-ms', '1.5', '--', 'node'], /whole number/],
    [['probe', '--consumer-delay-ms', '-5', '--', 'node'], /'-5' is invalid.*whole number/],
    [['probe'], /probe needs a server command/],
    [['probe', '--timeout-ms', ' ', '--', 'node'], /whole number/],
    [['probe', '--timeout-ms', '0x10', '--', 'node'], /whole number/],
    [['probe', '--max-frame-bytes', '1e3', '--', 'node'], /whole number/],
    [['probe', '--args', '{}', '--', 'node'], /--args needs --call/],
    [['probe', '--cancel-after-ms', '5', '--', 'node'], /--cancel-after-ms needs --call/],
    [['probe', '--cancel-after-bytes', '5', '--', 'node'], /--cancel-after-bytes needs --call/],
    [['probe', '--reader', 'paused', '--', 'node'], /--reader needs --call/],
    [['probe', '--consumer-delay-ms', '5', '--', 'node'], /--consumer-delay-ms needs --call/],
    [['probe', '--call', 'echo', '--args', '[1]', '--', 'node'], /--args must be a JSON object/],
    [['probe', '--call', 'echo', '--args', '{bad', '--', 'node'], /--args is not valid JSON/],
    [['probe', '--demo', 'no-such-demo'], /unknown demo "no-such-demo"/],
    [['probe', '--demo', 'healthy', '--demo-arg', 'bogus=1'], /no knob "bogus"/],
    [['probe', '--demo', 'healthy', '--demo-arg', 'novalue'], /name=value/],
    [['probe', '--demo', 'healthy', '--', 'node'], /either --demo <id> or a command/],
    [['probe', '--demo-arg', 'a=b', '--', 'node'], /--demo-arg needs --demo/],
    [['no-such-command'], /unknown command/],
  ])('%j', async (argv, message) => {
    const { value, out, err } = await captured(() => main(argv));
    expect(value).toBe(2);
    expect(err).toMatch(message);
    expect(err).not.toMatch(/internal error|\n\s+at /);
    expect(out).toBe('');
  });

  it('prints the version and exits 0', async () => {
    const { value, out } = await captured(() => main(['--version']));
    expect(value).toBe(0);
    expect(out.trim()).toBe('0.1.0');
  });
});
