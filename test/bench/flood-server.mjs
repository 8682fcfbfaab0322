/**
 * Flood server for the event-loop benchmark: `node flood-server.mjs <total-bytes> <frame-bytes>`.
 * Writes complete JSON-RPC response lines until <total-bytes> went out, honouring 'drain'
 * (a well-behaved server at full speed). One block of lines is built once and written again and
 * again, so the server itself stays cheap.
 */
const [totalArg, frameArg] = process.argv.slice(2);
const total = Number(totalArg);
const frameBytes = Number(frameArg);
const head = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"';
const tail = '"}]}}';
const line = `${head}${'x'.repeat(frameBytes - head.length - tail.length - 1)}${tail}\n`;
const perBlock = Math.max(1, Math.floor((1 << 20) / line.length));
const block = Buffer.from(line.repeat(perBlock));
let sent = 0;
function pump() {
  while (sent < total) {
    sent += block.length;
    if (!process.stdout.write(block)) return process.stdout.once('drain', pump);
  }
  process.stdout.end();
}
process.stdout.on('error', () => process.exit(0));
pump();
