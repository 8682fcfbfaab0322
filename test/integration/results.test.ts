/**
 * Results on real processes (issue 21): @modelcontextprotocol/server-filesystem's read_text_file
 * on a 20 MB file (a ~40 MiB line: the text in content and again in structuredContent) passes
 * the default 128 MiB limit and is audited; `--host ts-sdk` ends the session as the SDK client
 * would; a 200 MiB answer over the limit fails its request as soon as its newline arrives, its id
 * read from the line's first bytes (id written first) or its last (id written last, the SDKs).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initialize } from '../../dist/electron/engine/session/mcp-client.js';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import type { RequestRecord } from '../../dist/shared/requests.js';
import {
  collectStderr,
  expectNothingLeftBehind,
  inlineServer,
  MiB,
  REPO,
  runCli,
  startSession,
  stopAllSessions,
  waitFor,
  withTimeout,
} from './helpers.js';

const FS_SERVER = path.join(
  REPO,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
let dir = '';
let file = '';

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pipescope-results-'));
  file = path.join(dir, 'big.txt');
  // 20.4 MB of text lines with quotes and tabs (escaped on the wire: the line grows).
  const line = 'The "quick" brown fox\tjumps over the lazy dog, 0123456789 and so on.\n';
  writeFileSync(file, line.repeat(Math.ceil(20_400_000 / line.length)).slice(0, 20_400_000));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  expectNothingLeftBehind();
});
afterEach(stopAllSessions);

const readArgs = (): string[] => [
  '--call',
  'read_text_file',
  '--args',
  JSON.stringify({ path: file }),
  '--json',
  '--',
  process.execPath,
  FS_SERVER,
  dir,
];

describe('server-filesystem: a 20 MB file read', () => {
  it('completes by default, audited: result-over-budget names the hosts it breaks', async () => {
    const r = await runCli(['probe', ...readArgs()], 60_000);
    const report = JSON.parse(r.stdout) as ProbeReport;
    const call = report.requests.find((q) => q.method === 'tools/call');
    expect(call?.status).toBe('completed');
    expect(call?.responseBytes).toBeGreaterThan(40 * MiB);
    const audit = call?.audit;
    expect(audit?.blocks).toEqual([{ kind: 'text', count: 1, bytes: 20_400_000 }]);
    expect(audit?.duplicatedBytes).toBe(20_400_000);
    expect(audit?.incomplete).toEqual([]);
    const over = report.findings.filter((f) => f.code === 'result-over-budget');
    expect(over).toHaveLength(1);
    expect(over[0].level).toBe('warn');
    expect(over[0].message).toMatch(/over the 1 MiB result budget/);
    expect(over[0].message).toMatch(/TypeScript SDK client \(a line over 10 MiB/);
    expect(over[0].message).toMatch(/Claude Desktop \(a result over 1 MiB/);
    expect(over[0].message).toMatch(/does not say it is incomplete/);
    expect(over[0].message).toMatch(/sent twice/);
    expect(report.findings.filter((f) => f.level === 'error')).toEqual([]);
    expect(report.metrics.oversizeFrames).toBe(0);
    expect(r.code).toBe(0);
  }, 90_000);

  it('with --host ts-sdk, ends the session as the SDK client would and says so', async () => {
    const r = await runCli(['probe', '--host', 'ts-sdk', ...readArgs()], 60_000);
    const report = JSON.parse(r.stdout) as ProbeReport;
    const call = report.requests.find((q) => q.method === 'tools/call');
    expect(call?.status).toBe('failed');
    expect(call?.error?.message).toMatch(
      /session ended as the TypeScript SDK client would: its ReadBuffer throws .* closes the connection/,
    );
    const oversize = report.findings.find((f) => f.code === 'oversize-frame');
    expect(oversize?.message).toMatch(
      /passed maxFrameBytes \(10 MiB\); session ended as the TypeScript SDK client would/,
    );
    expect(report.findings.some((f) => f.code === 'server-exited')).toBe(false);
    expect(r.code).toBe(1);
  }, 90_000);
});

/**
 * Answers tools/call with one line of `bytes` bytes (id first or last), written in 1 MiB
 * pieces with backpressure, then `LAST <epoch ms>` on stderr once its last byte is in the pipe.
 */
function hugeAnswer(idFirst: boolean, bytes: number) {
  return inlineServer(`
const IDF = ${idFirst};
const BYTES = ${bytes};
function onMessage(m) {
  if (m.id === undefined) return;
  if (m.method !== 'tools/call') {
    reply(m.id, m.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'huge', version: '1' } } : {});
    return;
  }
  const head = IDF ? '{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"text","text":"'
    : '{"result":{"content":[{"type":"text","text":"';
  const tail = IDF ? '"}]}}\\n' : '"}]},"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + '}\\n';
  let left = BYTES - head.length - tail.length + 1;
  const piece = Buffer.alloc(1024 * 1024, 0x61);
  process.stdout.write(head);
  const more = () => {
    while (left > 0) {
      const n = Math.min(left, piece.length);
      left -= n;
      if (!process.stdout.write(n === piece.length ? piece : piece.subarray(0, n))) {
        process.stdout.once('drain', more);
        return;
      }
    }
    process.stdout.write(tail, () => process.stderr.write('LAST ' + Date.now() + '\\n'));
  };
  more();
}`);
}

describe('a 200 MiB answer over the 128 MiB limit', () => {
  for (const idFirst of [true, false]) {
    const where = idFirst ? 'first' : 'last';
    it(`fails its request within 1 s of its last byte, id read from its ${where} bytes`, async () => {
      const session = startSession(hugeAnswer(idFirst, 200 * MiB));
      const stderr = collectStderr(session);
      await withTimeout(session.whenStarted(), 5000, 'start');
      await withTimeout(initialize(session, 5000), 5000, 'initialize');
      let failedAt = 0;
      session.on('request', (r: RequestRecord) => {
        if (r.method === 'tools/call' && r.status === 'failed' && failedAt === 0)
          failedAt = Date.now();
      });
      const sent = session.send(
        'tools/call',
        { name: 'dump', arguments: {} },
        { timeoutMs: 60_000 },
      );
      const { record } = await withTimeout(sent.done, 60_000, 'the call to settle');
      expect(record.status).toBe('failed');
      expect(record.error?.message).toMatch(
        new RegExp(
          `response discarded: a 200 MiB line over the 128 MiB transport limit \\(maxFrameBytes\\); id ${record.id} read from its ${where} bytes`,
        ),
      );
      const last = Number((await stderr.waitFor(/LAST \d+/, 10_000)).match(/LAST (\d+)/)?.[1]);
      expect(failedAt - last).toBeLessThan(1000);
      expect(session.findings.all().map((f) => f.code)).toContain('oversize-frame');
      // The session goes on: the next request is answered.
      const ping = session.send('ping', undefined, { timeoutMs: 10_000 });
      expect((await withTimeout(ping.done, 10_000, 'ping')).record.status).toBe('completed');
      await waitFor(() => session.liveMetrics().oversizeFrames === 1, 2000, 'the count');
    }, 90_000);
  }
});
