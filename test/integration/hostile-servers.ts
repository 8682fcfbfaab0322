/**
 * Small hostile servers for transport-hostile.test.ts, as `node -e` bodies on top of the
 * PRELUDE of helpers.ts (`send`, `reply`, `onMessage`). Each one misbehaves on stdout in one
 * precise way; byte counts the tests rely on are given next to each.
 */

import { inlineServer } from './helpers.js';

export const BANNER = 'Starting weather-server v1.2 on stdio...';

/** A banner at start-up, and a log line on stdout before each answer. */
export const pollution = inlineServer(`
process.stdout.write(${JSON.stringify(`${BANNER}\n`)});
function onMessage(m) {
  if (m.id === undefined) return;
  process.stdout.write('handling ' + m.method + '\\n');
  reply(m.id, { ok: true });
}`);

/** Four garbage lines at start-up: invalid UTF-8, BOM + JSON, an ANSI banner (CRLF), empty. */
export const garbage = inlineServer(`
process.stdout.write(Buffer.from([0xff, 0xfe, 0x41, 0x0a]));
process.stdout.write('\\ufeff{"jsonrpc":"2.0","method":"notifications/message","params":{}}\\n');
process.stdout.write('\\x1b[1;32m\\u25cf ready\\x1b[0m\\r\\n');
process.stdout.write('\\r\\n');
function onMessage(m) { if (m.id !== undefined) reply(m.id, { fine: true }); }`);

/**
 * Before each answer, a response line of exactly limit+1 bytes (for an id we never sent);
 * then the real answer padded to exactly `limit` bytes.
 */
export function frameLimit(limit: number) {
  return inlineServer(`
const LIMIT = ${limit};
function sized(id, bytes) {
  const base = JSON.stringify({ jsonrpc: '2.0', id, result: { pad: '' } });
  return JSON.stringify({ jsonrpc: '2.0', id, result: { pad: 'p'.repeat(bytes - base.length) } });
}
function onMessage(m) {
  if (m.id === undefined) return;
  process.stdout.write(sized(m.id + 1000, LIMIT + 1) + '\\n' + sized(m.id, LIMIT) + '\\n');
}`);
}

/** Answers with a half line and exits with code 3 once it is written (PARTIAL_BYTES bytes). */
export const PARTIAL = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"half';
export const truncated = inlineServer(`
function onMessage(m) {
  if (m.id !== undefined) process.stdout.write(${JSON.stringify(PARTIAL)}, () => process.exit(3));
}`);

/** 10 MB to stderr (synchronous on Linux pipes: it blocks unless the host drains), then answers. */
export const STDERR_FLOOD_BYTES = 10_000_000;
export const stderrFlood = inlineServer(`
const started = Date.now();
const line = Buffer.from('log '.repeat(24) + 'flood\\n'); // 102 bytes
const chunk = Buffer.alloc(1_000_000);
for (let at = 0; at < chunk.length; at += line.length) line.copy(chunk, at);
for (let i = 0; i < 10; i++) process.stderr.write(chunk);
const floodMs = Date.now() - started;
function onMessage(m) { if (m.id !== undefined) reply(m.id, { floodMs }); }`);

/** On any request: COUNT logging notifications, then the answer. */
export const NOTIFICATIONS = 400;
export const notificationFlood = inlineServer(`
function onMessage(m) {
  if (m.id === undefined) return;
  let out = '';
  for (let i = 0; i < ${NOTIFICATIONS}; i++)
    out += JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message',
      params: { level: 'info', data: 'n' + i } }) + '\\n';
  process.stdout.write(out);
  reply(m.id, {});
}`);

/** Valid JSON that breaks naive hosts: __proto__, huge numbers, 1e5-deep nesting. */
export const weirdJson = inlineServer(`
function onMessage(m) {
  if (m.id === undefined) return;
  const lines = [
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"__proto__":{"polluted":"yes"},"level":"info"}}',
    '{"__proto__":{"polluted":"yes"},"jsonrpc":"2.0","id":' + m.id + '0,"result":{}}',
    '{"jsonrpc":"2.0","id":1e400,"result":{}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"n":123456789012345678901234567890e300,"m":-1e-400,"i":9007199254740993}}',
    '{"a":'.repeat(100000) + '1' + '}'.repeat(100000),
    '['.repeat(100000) + ']'.repeat(100000),
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"deep":' + '['.repeat(7000) + ']'.repeat(7000) + '}}',
  ];
  process.stdout.write(lines.join('\\n') + '\\n');
  reply(m.id, { survived: true });
}`);

/** Answers every request inside a batch that also carries a notification and a server ping. */
export const batches = inlineServer(`
function onMessage(m) {
  if (m.method === undefined) { process.stderr.write('GOT ' + JSON.stringify(m) + '\\n'); return; }
  if (m.id === undefined) return;
  process.stdout.write(JSON.stringify([
    { jsonrpc: '2.0', id: m.id, result: { batched: true } },
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
    { jsonrpc: '2.0', id: 'srv-batch-ping', method: 'ping' },
  ]) + '\\n');
}`);

/** Answers an id we never sent, then the real answer twice. */
export const unknownIds = inlineServer(`
function onMessage(m) {
  if (m.id === undefined) return;
  reply(9999, {});
  reply(m.id, { first: true });
  reply(m.id, { second: true });
}`);

/** Asks the host ping and roots/list at start-up; logs every line it gets on stderr. */
export const serverRequests = inlineServer(`
send({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' });
send({ jsonrpc: '2.0', id: 'srv-2', method: 'roots/list' });
function onMessage(m) { process.stderr.write('GOT ' + JSON.stringify(m) + '\\n'); }`);

/** Tiny non-JSON lines as fast as the pipe takes them (as `yes` prints), whatever is asked. */
export const yesFlood = inlineServer(`
const block = 'y\\n'.repeat(32768);
const more = () => { while (process.stdout.write(block)); process.stdout.once('drain', more); };
more();
function onMessage() {}`);
