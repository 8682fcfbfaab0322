/**
 * `pipescope check`'s command line (DESIGN.md "Tap, attach and check", docs/check.md): usage
 * errors exit 2 with one line per mistake; `--call/--args` pairs; a server that never answers
 * or cannot start ends the check inside its budgets (exit 1, the handshake failed, the rest
 * skipped, nothing left running); a server that logs synchronously fails stderr-slow; and the
 * two real npm servers pass and fail as a person would expect (reasons in docs/check.md).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../dist/shared/check-report.js';
import { junitProblems } from '../fixtures/junit-schema.js';
import { groupMembers, running } from '../fixtures/processes.js';
import { expectNothingLeftBehind, inlineServer, REPO, runCli } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-check-cli-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  expectNothingLeftBehind();
});

const statuses = (r: CheckReport, status: string): string[] =>
  r.cases.filter((c) => c.status === status).map((c) => c.id);

function expectRunsGone(r: CheckReport): void {
  for (const run of r.runs) {
    if (run.pid === null) continue;
    expect(running(run.pid), `${run.case} server ${run.pid}`).toBe(false);
    expect(groupMembers(run.pid)).toEqual([]);
  }
}

/** Answers at once; `chatty` first writes 1 MiB to stderr the way a synchronous logger does
 *  (the call returns only once the pipe took it all), then answers. */
const inline = inlineServer(`
const fs = require('node:fs');
const nap = new Int32Array(new SharedArrayBuffer(4));
function logSync(bytes) {
  const block = Buffer.alloc(bytes, 'a log line nobody reads\\n');
  for (let sent = 0; sent < bytes; ) {
    try { sent += fs.writeSync(2, block, sent, bytes - sent); }
    catch (e) { if (e.code !== 'EAGAIN') throw e; Atomics.wait(nap, 0, 0, 5); }
  }
}
const TOOLS = [
  { name: 'quick', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'chatty', inputSchema: { type: 'object' } },
  { name: 'needs', inputSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } },
];
function onMessage(m) {
  if (m.id === undefined) return;
  if (m.method === 'initialize')
    reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'inline', version: '0.0.1' } });
  else if (m.method === 'tools/list') reply(m.id, { tools: TOOLS });
  else if (m.method === 'ping') reply(m.id, {});
  else if (m.method === 'tools/call') {
    if (m.params.name === 'chatty') logSync(1024 * 1024);
    reply(m.id, { content: [{ type: 'text', text: 'args ' + JSON.stringify(m.params.arguments) }] });
  } else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'unknown method' } });
}`);

describe('pipescope check: usage errors exit 2, one line per mistake', () => {
  const bad = path.join(dir, 'bad.check.json');
  writeFileSync(
    bad,
    JSON.stringify({ tools: [{ tool: 'search' }, { name: 'x', args: 'q=1' }], pauseMs: -1 }),
  );
  const cases: [string, string[], RegExp][] = [
    ['no server', ['check'], /check needs a server command after `--`/],
    [
      '--args before any --call',
      ['check', '--args', '{}', '--', 'node'],
      /--args must follow the --call/,
    ],
    [
      'two --args for one --call',
      ['check', '--call', 'a', '--args', '{}', '--args', '{}', '--', 'node'],
      /--call a already has its --args/,
    ],
    [
      '--args not an object',
      ['check', '--call', 'a', '--args', '[1]', '--', 'node'],
      /--args must be a JSON object/,
    ],
    [
      '--timeout-ms too small',
      ['check', '--timeout-ms', '5', '--', 'node'],
      /--timeout-ms must be a whole number ≥ 100/,
    ],
    ['an unknown demo', ['check', '--demo', 'nope'], /unknown demo "nope"/],
    [
      'a demo and a command',
      ['check', '--demo', 'healthy', '--', 'node'],
      /either --demo <id> or a command/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await runCli(args, 10_000);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    });
  }

  it('a config with mistakes: each on its own line, where it is', async () => {
    const r = await runCli(['check', '--config', bad, '--', 'node'], 10_000);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toContain('has 4 mistake(s)');
    expect(lines.slice(1).map((l) => l.trim())).toEqual([
      'tools[0].name: required',
      'tools[0].tool: unknown key (see docs/check.md)',
      'tools[1].args: expected the arguments as a JSON object',
      'pauseMs: at least 100 ms',
    ]);
  });
});

describe.concurrent('pipescope check: servers that misbehave, and the real npm servers', () => {
  it('a server that never answers and ignores SIGTERM: the handshake fails, the rest is skipped, nothing is left', {
    timeout: 60_000,
  }, async () => {
    const hang =
      "process.on('SIGTERM', () => {}); process.stdin.resume(); setInterval(() => {}, 1000);";
    const junit = path.join(dir, 'hang.xml');
    const r = await runCli(
      [
        'check',
        '--json',
        '--junit',
        junit,
        '--timeout-ms',
        '1000',
        '--',
        process.execPath,
        '-e',
        hang,
      ],
      50_000,
    );
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(statuses(report, 'failed')).toEqual(['handshake']);
    expect(statuses(report, 'passed')).toEqual([]);
    expect(report.cases[0].reason).toMatch(
      /initialize \(request 1\) failed: no answer within \d+ ms/,
    );
    expect(junitProblems(readFileSync(junit, 'utf8'))).toEqual([]);
    expect(report.runs.map((x) => x.exit?.signal)).toEqual(['SIGKILL']);
    expectRunsGone(report);
  });

  it('a command that does not exist: the handshake fails with the reason, exit 1', {
    timeout: 30_000,
  }, async () => {
    const r = await runCli(['check', '--', path.join(dir, 'no-such-server')], 20_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /✗ handshake\s+the server could not start: .*command not found \(ENOENT\)/,
    );
    expect(r.stdout).toMatch(/12 cases: 0 passed, 1 failed, 11 skipped/);
  });

  it('--call/--args pairs, in order; a synchronous logger fails stderr-slow and only that', {
    timeout: 90_000,
  }, async () => {
    const r = await runCli(
      [
        'check',
        '--json',
        '--call',
        'quick',
        '--args',
        '{"text":"hi"}',
        '--call',
        'chatty',
        '--',
        inline.command,
        ...inline.args,
      ],
      80_000,
    );
    const report = JSON.parse(r.stdout) as CheckReport;
    const explain = report.cases.map((c) => `${c.status} ${c.id}: ${c.reason}`).join('\n');
    expect(report.tools.map((t) => [t.name, t.args, t.source])).toEqual([
      ['quick', { text: 'hi' }, 'cli'],
      ['chatty', {}, 'cli'],
    ]);
    expect(report.notCalled).toEqual([{ name: 'needs', why: 'not named' }]);
    expect(statuses(report, 'failed'), explain).toEqual(['stderr-slow']);
    expect(statuses(report, 'skipped'), explain).toEqual([
      'cancel-before-work',
      'cancel-mid-output',
      'cancel-subprocess',
    ]);
    const slow = report.cases.find((c) => c.id === 'stderr-slow');
    expect(slow?.reason).toMatch(
      /chatty did not answer within .*its answers wait on its own logging/,
    );
    expect(r.code).toBe(1);
    expectRunsGone(report);
  });

  it('a server that leaves a process holding its stdout fails shutdown, and nothing is left', {
    timeout: 60_000,
  }, async () => {
    const leaver = inlineServer(`
const { spawn } = require('node:child_process');
let left = false;
function onMessage(m) {
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    // Its own session and group, holding the server's stdout: outlives the group's SIGKILL.
    if (!left) spawn('sleep', ['300'], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] }).unref();
    left = true;
    reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'leaver', version: '1' } });
  } else if (m.method === 'tools/list') reply(m.id, { tools: [] });
  else reply(m.id, {});
}`);
    const r = await runCli(['check', '--json', '--', leaver.command, ...leaver.args], 50_000);
    const report = JSON.parse(r.stdout) as CheckReport;
    const shutdown = report.cases.find((c) => c.id === 'shutdown');
    expect(shutdown?.status).toBe('failed');
    expect(shutdown?.codes).toEqual(['processes-left']);
    const pids = [...(shutdown?.reason ?? '').matchAll(/(\d+) sleep 300/g)].map((m) =>
      Number(m[1]),
    );
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(running(pid), `sleep ${pid}`).toBe(false);
    expect(r.code).toBe(1);
    expectRunsGone(report);
  });

  it('server-everything: its long-running operation ignores cancellation; everything else passes', {
    timeout: 120_000,
  }, async () => {
    const config = path.join(dir, 'everything.check.json');
    writeFileSync(
      config,
      JSON.stringify({
        server: {
          command: process.execPath,
          args: [
            path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
            'stdio',
          ],
        },
        tools: [
          { name: 'echo', args: { message: 'hi' } },
          { name: 'get-sum', args: { a: 1, b: 2 } },
          { name: 'get-tiny-image' },
          { name: 'get-structured-content', args: { location: 'New York' } },
          { name: 'trigger-long-running-operation', args: { duration: 2, steps: 4 }, slow: true },
        ],
      }),
    );
    const r = await runCli(['check', '--json', '--config', config], 110_000);
    const report = JSON.parse(r.stdout) as CheckReport;
    const explain = report.cases.map((c) => `${c.status} ${c.id}: ${c.reason}`).join('\n');
    expect(statuses(report, 'failed'), explain).toEqual([
      'cancel-before-work',
      'cancel-mid-output',
    ]);
    expect(statuses(report, 'skipped'), explain).toEqual(['cancel-subprocess']);
    for (const id of ['cancel-before-work', 'cancel-mid-output'])
      expect(report.cases.find((c) => c.id === id)?.reason).toMatch(
        /still sent \d+ progress notification\(s\) for the cancelled call/,
      );
    expect(report.serverInfo?.name).toBe('mcp-servers/everything');
    expect(r.code).toBe(1);
    expectRunsGone(report);
  });

  it('server-memory: pipescope.check.json found in the working directory; every case that can run passes', {
    timeout: 90_000,
  }, async () => {
    const cwd = mkdtempSync(path.join(dir, 'memory-'));
    writeFileSync(
      path.join(cwd, 'pipescope.check.json'),
      JSON.stringify({
        server: {
          command: process.execPath,
          args: [path.join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
          env: { MEMORY_FILE_PATH: path.join(cwd, 'memory.jsonl') },
        },
        tools: [
          {
            name: 'create_entities',
            args: {
              entities: [{ name: 'pipescope', entityType: 'tool', observations: ['reads stdio'] }],
            },
          },
          { name: 'read_graph' },
          { name: 'search_nodes', args: { query: 'pipe' } },
          { name: 'open_nodes', args: { names: ['pipescope'] } },
        ],
      }),
    );
    const r = await runCli(['check'], 80_000, { cwd });
    expect(r.code, r.stdout).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^pipescope check: .*server-memory/);
    expect(lines.filter((l) => /^ {2}✓ /.test(l))).toHaveLength(9);
    expect(lines.filter((l) => /^ {2}– cancel-/.test(l))).toHaveLength(3);
    expect(lines.filter((l) => /^ {2}✗ /.test(l))).toEqual([]);
    expect(r.stdout).toMatch(/12 cases: 9 passed, 0 failed, 3 skipped in [\d.]+ s\n$/);
    expect(readFileSync(path.join(cwd, 'memory.jsonl'), 'utf8')).toContain('pipescope');
  });
});
