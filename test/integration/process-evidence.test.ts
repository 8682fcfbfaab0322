/**
 * Process evidence on real processes (issue 19): four servers that all owe an answer with a
 * silent stdout — one whose answer sits in a block-buffered stdout, one waiting on a child
 * blocked writing a pipe nobody drains, one burning CPU, one blocked in write() to a host that
 * does not read — must each get their own finding code, with evidence, and not the others'.
 * Healthy servers (ours, a Python one, real npm servers) get none of the new codes; a handshake
 * that fails is never a pass. Linux: /proc is what the sampler reads.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ProbeOptions, runProbe } from '../../dist/electron/cli/probe.js';
import type { Finding } from '../../dist/shared/findings.js';
import { REPO, runCli, stopAllSessions } from './helpers.js';

afterEach(stopAllSessions);

const PROCESS_CODES = [
  'server-output-buffered',
  'subprocess-blocked',
  'server-busy',
  'server-write-blocked',
  'handshake-failed',
] as const;

const linux = process.platform === 'linux';
const python = ((): string | null => {
  try {
    execFileSync('python3', ['-c', 'pass'], { stdio: 'ignore' });
    return 'python3';
  } catch {
    return null;
  }
})();

function fixture(name: string): string {
  return path.join(REPO, 'test/fixtures/servers', name);
}

function probe(command: string, args: string[], o: Partial<ProbeOptions> = {}) {
  return runProbe({
    command,
    args,
    env: { PYTHONUNBUFFERED: '' },
    timeoutMs: 6000,
    reader: 'drain',
    consumerDelayMs: 0,
    ...o,
  });
}

function only(findings: Finding[], code: (typeof PROCESS_CODES)[number]): Finding {
  const codes = findings.map((f) => f.code);
  for (const other of PROCESS_CODES) {
    if (other !== code) expect(codes, `${other} must not fire`).not.toContain(other);
  }
  const f = findings.find((x) => x.code === code);
  expect(f, `${code} in ${codes.join(', ')}`).toBeDefined();
  return f as Finding;
}

describe.skipIf(!linux || !python)('why the pipe is silent (Python servers, /proc)', () => {
  it('block-buffered stdout: server-output-buffered, seen idle in read(0); the answer flushed at the stop is not late', {
    timeout: 20_000,
  }, async () => {
    const o = await probe('python3', [fixture('buffered.py')], { call: 'answer' });
    const f = only(o.report.findings, 'server-output-buffered');
    expect(f.evidence?.syscall).toMatchObject({ name: 'read', fd: 0 });
    expect(f.evidence?.pid).toBe(o.report.server.pid);
    expect(f.message).toMatch(/read\(0, [\d,]+ B\)/);
    const call = o.report.requests.find((r) => r.method === 'tools/call');
    expect(call?.status).toBe('timed-out');
    // Its answer arrived when stdin closed: counted as what it was, never as an ignored cancel.
    expect(call?.responseBytes).toBeGreaterThan(0);
    expect(o.report.findings.map((x) => x.code)).not.toContain('cancel-ignored');
    expect(o.report.metrics.lateResponses).toBe(0);
    expect(o.report.process.available).toBe(true);
    expect(o.report.process.samples).toBeGreaterThan(5);
    expect(o.exitCode).toBe(1);
  });

  it('block-buffered stdout with the sampler off: the at-exit signature alone', {
    timeout: 20_000,
  }, async () => {
    const o = await probe('python3', [fixture('buffered.py')], {
      call: 'answer',
      processSampling: false,
    });
    const f = only(o.report.findings, 'server-output-buffered');
    expect(f.message).toContain('only once its stdin was closed');
    expect(f.evidence).toBeDefined();
    expect(o.report.process).toEqual({
      available: false,
      reason: expect.stringContaining('off'),
      samples: 0,
    });
    expect(o.report.findings.map((x) => x.code)).not.toContain('cancel-ignored');
    expect(o.report.requests.find((r) => r.method === 'tools/call')?.status).toBe('timed-out');
  });

  it('a child blocked writing a pipe the server stopped reading: subprocess-blocked, naming both', {
    timeout: 20_000,
  }, async () => {
    const o = await probe('python3', [fixture('subprocess_blocked.py')], { call: 'run' });
    const f = only(o.report.findings, 'subprocess-blocked');
    const ev = f.evidence ?? {};
    expect(ev.command).toContain('yes');
    expect(ev.syscall).toMatchObject({ name: 'write', fd: 1 });
    expect(ev.pipe).toMatch(/^pipe:\[\d+\]$/);
    expect(ev.reader).toMatchObject({ pid: o.report.server.pid });
    expect(f.message).toMatch(/wait4/);
    // The timeout's forensics say what the tree was doing.
    const timedOut = o.report.findings.find((x) => x.code === 'request-timed-out');
    expect(timedOut?.message).toMatch(/Process: server \d+ .*wait4.*child \d+ yes/);
  });

  it('a CPU-bound tool: server-busy with its CPU share', { timeout: 20_000 }, async () => {
    const o = await probe('python3', [fixture('cpu_bound.py')], {
      call: 'crunch',
      callArgs: { seconds: 10 },
    });
    const f = only(o.report.findings, 'server-busy');
    expect(f.level).toBe('warn');
    expect(f.evidence?.cpuPercent).toBeGreaterThanOrEqual(50);
    expect(f.evidence?.ms).toBeGreaterThanOrEqual(2000);
    expect(o.report.findings.map((x) => x.code)).not.toContain('cancel-ignored');
  });

  it('a server blocked in write() to a paused reader: server-write-blocked with the call as proof', {
    timeout: 20_000,
  }, async () => {
    const writer = [
      '-c',
      [
        'import sys, json',
        'for line in sys.stdin:',
        '    m = json.loads(line)',
        "    if 'id' not in m: continue",
        "    if m['method'] == 'initialize': r = {'protocolVersion': '2025-06-18', 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'w', 'version': '1'}}",
        "    elif m['method'] == 'tools/list': r = {'tools': [{'name': 'dump', 'inputSchema': {'type': 'object'}}]}",
        "    else: r = {'content': [{'type': 'text', 'text': 'x' * 4000000}]}",
        "    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}) + '\\n'); sys.stdout.flush()",
      ].join('\n'),
    ];
    const o = await probe('python3', writer, { call: 'dump', reader: 'paused', timeoutMs: 5000 });
    const f = only(o.report.findings, 'server-write-blocked');
    expect(f.evidence?.syscall).toMatchObject({ name: 'write', fd: 1 });
    expect(f.evidence?.syscall?.bytes).toBeGreaterThan(4_000_000);
    expect(f.message).toMatch(/blocked in write\(1, [\d,]+ B\)/);
  });

  it('a server that rejects initialize: handshake-failed and exit 1', {
    timeout: 20_000,
  }, async () => {
    const o = await probe('python3', [fixture('reject_init.py')], { timeoutMs: 3000 });
    const f = only(o.report.findings, 'handshake-failed');
    expect(f.message).toContain('-32602');
    expect(o.exitCode).toBe(1);
  });

  // Healthy servers that look idle or stuck from one angle (review of issue 19).
  const pyServer = (tool: string): string[] => [
    '-c',
    [
      'import sys, json, time, threading, subprocess',
      'def send(i, r): sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": r}) + "\\n"); sys.stdout.flush()',
      'for line in sys.stdin:',
      '    m = json.loads(line)',
      '    if "id" not in m or "method" not in m: continue',
      '    i = m["id"]',
      '    if m["method"] == "initialize": send(i, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "h", "version": "1"}})',
      '    elif m["method"] == "tools/list": send(i, {"tools": [{"name": "go", "inputSchema": {"type": "object"}}]})',
      '    elif m["method"] == "ping": send(i, {})',
      `    else: ${tool}`,
    ].join('\n'),
  ];

  it('a tool working on a helper thread (asleep 4 s) while the main thread reads stdin: not buffered', {
    timeout: 20_000,
  }, async () => {
    const args = pyServer(
      'threading.Thread(target=lambda i=i: (time.sleep(4), send(i, {"content": []}))).start()',
    );
    const o = await probe('python3', args, { call: 'go', timeoutMs: 8000 });
    const codes = o.report.findings.map((f) => f.code);
    for (const c of PROCESS_CODES) expect(codes, c).not.toContain(c);
    expect(o.report.requests.find((r) => r.method === 'tools/call')?.status).toBe('completed');
  });

  it('an answer a sleeping tool sends after stdin closed is never called a flush at exit', {
    timeout: 20_000,
  }, async () => {
    // Sleeps 4.5 s in the tool (the probe times it out at ~3.4 s and stops), then answers.
    const args = pyServer('time.sleep(4.5); send(i, {"content": []})');
    const o = await probe('python3', args, { call: 'go', timeoutMs: 4000 });
    const codes = o.report.findings.map((f) => f.code);
    expect(codes).not.toContain('server-output-buffered');
  });

  it('a child whose output the server reads slowly is not blocked', {
    timeout: 20_000,
  }, async () => {
    // One 8 MB write by the child; the server reads 64 KiB every 20 ms and answers at the end.
    const args = pyServer(
      'p = subprocess.Popen(["python3", "-c", "import sys; sys.stdout.write(\'x\' * 8000000)"], stdout=subprocess.PIPE); ' +
        '[time.sleep(0.02) for _ in iter(lambda: p.stdout.read(65536), b"")]; p.wait(); send(i, {"content": []})',
    );
    const o = await probe('python3', args, { call: 'go', timeoutMs: 10_000 });
    const codes = o.report.findings.map((f) => f.code);
    expect(codes).not.toContain('subprocess-blocked');
    expect(o.report.requests.find((r) => r.method === 'tools/call')?.status).toBe('completed');
  });

  it('behind a wrapper (sh -c): the rules look at the server under it', {
    timeout: 20_000,
  }, async () => {
    const o = await probe('sh', ['-c', `python3 ${fixture('cpu_bound.py')}; true`], {
      call: 'crunch',
      callArgs: { seconds: 10 },
    });
    const f = only(o.report.findings, 'server-busy');
    expect(f.evidence?.command).toContain('cpu_bound.py');
    expect(f.evidence?.pid).not.toBe(o.report.server.pid);
  });

  it('an initialize answered with no InitializeResult: handshake-failed and exit 1', {
    timeout: 20_000,
  }, async () => {
    const o = await probe('python3', [
      '-c',
      'import sys, json\nfor line in sys.stdin:\n    m = json.loads(line)\n    if "id" in m: print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {}}), flush=True)',
    ]);
    only(o.report.findings, 'handshake-failed');
    expect(o.exitCode).toBe(1);
  });

  it('a healthy Python server: none of the process codes', { timeout: 20_000 }, async () => {
    const o = await probe('python3', [fixture('healthy.py')], {
      call: 'echo',
      callArgs: { text: 'hi' },
    });
    const codes = o.report.findings.map((f) => f.code);
    for (const c of PROCESS_CODES) expect(codes).not.toContain(c);
    expect(o.exitCode).toBe(0);
  });
});

describe('handshake-failed from the CLI', () => {
  it('`probe -- cat` is never a pass', { timeout: 20_000 }, async () => {
    const r = await runCli(['probe', '--json', '--timeout-ms', '2000', '--', 'cat']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    const f = report.findings.find((x: Finding) => x.code === 'handshake-failed');
    expect(f?.message).toContain('echoed');
  });
});

const NPM_SERVERS = [
  ['server-everything', ['stdio']],
  ['server-filesystem', [REPO]],
  ['server-memory', []],
] as const;

describe('real npm servers: no new code fires', () => {
  for (const [name, args] of NPM_SERVERS) {
    it(name, { timeout: 30_000 }, async () => {
      const entry = path.join(REPO, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');
      const o = await probe(process.execPath, [entry, ...args], {
        timeoutMs: 10_000,
        env: { MEMORY_FILE_PATH: path.join(REPO, 'node_modules/.cache/pipescope-memory.jsonl') },
      });
      const codes = o.report.findings.map((f) => f.code);
      for (const c of PROCESS_CODES) expect(codes, `${name}: ${c}`).not.toContain(c);
      expect(o.report.requests.find((r) => r.method === 'tools/list')?.status).toBe('completed');
      expect(o.report.process.samples).toBeGreaterThan(0);
    });
  }
});
