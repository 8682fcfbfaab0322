/**
 * Redaction canaries (HARDENING.md 33): an env value, `--token=…` and `--api-key …` arguments,
 * `Authorization: Bearer …` on stderr and in a tool call, and a browser-mode-style token
 * registered with `addSecret` are planted in a real session; the trace file and every export
 * made from it are grepped. With `record --no-redact` the same grep finds them (the test can
 * fail).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import { toHtml, toMarkdown } from '../../dist/electron/engine/trace/export/doc.js';
import { toChromeTrace } from '../../dist/electron/engine/trace/export/perfetto.js';
import { TraceReader } from '../../dist/electron/engine/trace/reader.js';
import { TraceRecorder } from '../../dist/electron/engine/trace/recorder.js';
import { addSecret, removeSecret } from '../../dist/electron/engine/trace/redact.js';
import { summarizeTrace } from '../../dist/electron/engine/trace/summary.js';
import type { TraceHeader } from '../../dist/shared/trace-format.js';
import {
  collectStderr,
  inlineServer,
  runCli,
  startSession,
  stopAllSessions,
  withTimeout,
} from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-redaction-'));
afterEach(stopAllSessions);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const WEB_TOKEN = `CANARY_WEB_${'k'.repeat(40)}`;
const ENV_VALUE = 'CANARY_ENV_7f3a9c';
const ARG_TOKEN = 'CANARY_ARG_TOKEN_51d2';
const ARG_KEY = 'CANARY_ARG_KEY_88e1';
const HEADER_TOKEN = 'CANARY_HDR_c0ffee';
/** A GitHub token's shape: the key-format rule must find it with no name beside it. */
const KEY_FORMAT = `ghp_${'CANARY'}${'k'.repeat(30)}`;
const ORDINARY = 'hello secret=abc, password: hunter2, the bearer of news';

/**
 * Says every secret it knows on stderr and echoes tool-call arguments plus the web token. Its
 * source spells no canary whole (the source is an argument, and arguments are recorded).
 */
const server = inlineServer(String.raw`
const WEB = ['CAN', 'ARY_WEB_'].join('') + 'k'.repeat(40);
process.stderr.write('Authorization: Bearer ' + process.env.HDR + '\n');
process.stderr.write('setting ' + process.env.MY_SETTING + '\n');
process.stderr.write('argv ' + process.argv.slice(1).join(' ') + '\n');
process.stderr.write('web token ' + WEB + '\n');
function onMessage(m) {
  if (m.id === undefined) return;
  if (m.method === 'initialize')
    reply(m.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'canary', version: '1' } });
  else if (m.method === 'tools/list') reply(m.id, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
  else if (m.method === 'tools/call')
    reply(m.id, { content: [{ type: 'text', text: JSON.stringify(m.params.arguments) + ' ' + WEB }] });
  else reply(m.id, {});
}
`);

describe('redaction canaries', () => {
  afterEach(() => removeSecret(WEB_TOKEN));

  it('no canary reaches the trace file or any export; names are kept', async () => {
    addSecret(WEB_TOKEN);
    const file = path.join(tmp, 'canary.jsonl');
    const session = startSession({
      command: server.command,
      args: [...server.args, '--', `--token=${ARG_TOKEN}`, '--api-key', ARG_KEY],
      env: { MY_SETTING: ENV_VALUE, HDR: HEADER_TOKEN },
    });
    const stderr = collectStderr(session);
    const recorder = TraceRecorder.start(session, { path: file });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    await withTimeout(listTools(session, 5000), 5000, 'tools/list');
    const call = callTool(session, 'echo', {
      headers: { Authorization: 'Bearer CANARY_FRAME_AUTH_9d' },
      url: 'https://api.example/x?token=CANARY_QUERY_4e',
      note: `the setting is ${ENV_VALUE}`,
      // A key in a well-known format, inside ordinary text.
      text: `use ${KEY_FORMAT} please`,
      // Ordinary payload text that only names a secret: kept as it was (issue 22).
      plain: ORDINARY,
    });
    await withTimeout(call.done, 5000, 'tools/call');
    // The canaries really went through the session (else the grep below proves nothing).
    await stderr.waitFor(WEB_TOKEN);
    expect(stderr.text()).toContain(ENV_VALUE);
    expect(stderr.text()).toContain(ARG_TOKEN);
    expect(stderr.text()).toContain(`Authorization: Bearer ${HEADER_TOKEN}`);
    await session.stop();
    await recorder.finish();

    const text = readFileSync(file, 'utf8');
    expect(text).toContain('Authorization');
    expect(text.match(/CANARY[\w]*/g)).toBeNull();
    // Ordinary text went through untouched, in the request and in the echoed answer.
    expect(text.split(ORDINARY).length - 1).toBeGreaterThanOrEqual(2);
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as TraceHeader;
    expect(header.redacted).toBe(true);
    // The header says what was redacted and why, per rule, with the final counts.
    expect(header.redaction?.final).toBe(true);
    const count = (rule: string) => header.redaction?.rules.find((r) => r.rule === rule)?.count;
    expect(count('env-value')).toBeGreaterThanOrEqual(3); // 2 in the header, 1+ on stderr
    expect(count('key-format')).toBeGreaterThanOrEqual(2); // the request and its echo
    expect(count('auth-header')).toBeGreaterThanOrEqual(2);
    expect(count('app-token')).toBeGreaterThanOrEqual(2);
    expect(count('secret-assignment')).toBe(0);
    expect(header.redaction?.rules.find((r) => r.rule === 'key-format')?.why).toMatch(/ghp_/);
    // The request frame that carried secrets says so; its ordinary neighbour is kept exactly.
    const frames = text
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; dir?: string; redacted?: true; text?: string });
    const callFrame = frames.find(
      (e) => e.type === 'frame' && e.dir === 'out' && e.text?.includes('tools/call'),
    );
    expect(callFrame?.redacted).toBe(true);
    const list = frames.find(
      (e) => e.type === 'frame' && e.dir === 'out' && e.text?.includes('tools/list'),
    );
    expect(list?.redacted).toBeUndefined();
    expect(header.server.env).toEqual({ MY_SETTING: '***', HDR: '***' });
    expect(header.server.args.slice(-3)).toEqual(['--token=***', '--api-key', '***']);

    const reader = await TraceReader.open(file);
    const sum = await summarizeTrace(reader);
    await reader.close();
    const exports = [toHtml(sum), toMarkdown(sum), JSON.stringify(toChromeTrace(sum))];
    for (const e of exports) expect(e).not.toMatch(/CANARY/);
  });

  it('record --no-redact keeps them (and says so in the header)', async () => {
    const file = path.join(tmp, 'raw.jsonl');
    const command = [
      process.execPath,
      '-e',
      `process.stderr.write('Authorization: Bearer ${HEADER_TOKEN}\\n')`,
      '--',
      `--token=${ARG_TOKEN}`,
    ];
    const cli = await runCli([
      'record',
      '--trace',
      file,
      '--no-redact',
      '--json',
      '--',
      ...command,
    ]);
    expect(cli.stderr).toMatch(/recording/);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(ARG_TOKEN);
    expect(text).toContain(HEADER_TOKEN);
    expect(JSON.parse(text.slice(0, text.indexOf('\n'))).redacted).toBe(false);
    // The same command recorded with the default redacts both.
    const safe = path.join(tmp, 'safe.jsonl');
    await runCli(['record', '--trace', safe, '--json', '--', ...command]);
    const safeText = readFileSync(safe, 'utf8');
    expect(safeText).toContain('Authorization: ***');
    expect(safeText).not.toMatch(/CANARY/);
  });
});
