/**
 * Benchmark workloads, shared by the bench, the reader and the generator.
 *
 * A workload is a spec string (it travels on argv): `<frames>x<bytes>:<text>`, e.g.
 * `1x67108864:ascii` or `2000x65536:multibyte`. Every frame is one JSON-RPC response line,
 * `{"jsonrpc":"2.0","id":N,"result":{"content":[{"type":"text","text":"..."}]}}`, padded to
 * exactly <bytes> bytes (UTF-8, newline not counted) and followed by `\n`.
 */

const HEAD = (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`;
const TAIL = '"}]}}';
// Multibyte text that JSON.stringify leaves raw: 2-, 3- and 4-byte UTF-8 and U+2028/U+2029
// (which a readline-based reader would split on).
const MULTIBYTE_UNIT = 'é中😀\u2028 ñ語🎉\u2029 ';

export function parseWorkload(spec) {
  const m = /^(\d+)x(\d+):(ascii|multibyte)$/.exec(spec);
  if (!m) throw new Error(`bad workload spec: ${spec}`);
  const frames = Number(m[1]);
  const frameBytes = Number(m[2]);
  return { spec, frames, frameBytes, text: m[3], streamBytes: frames * (frameBytes + 1) };
}

export function describeWorkload(spec) {
  const { frames, frameBytes, text } = parseWorkload(spec);
  const size =
    frameBytes % (1024 * 1024) === 0
      ? `${frameBytes / 1024 / 1024} MiB`
      : frameBytes % 1024 === 0
        ? `${frameBytes / 1024} KiB`
        : `${frameBytes} B`;
  return `${frames.toLocaleString('en-US')} x ${size}${text === 'multibyte' ? ' mb' : ''}`;
}

function frameText(id, frameBytes, text) {
  const room = frameBytes - Buffer.byteLength(HEAD(id)) - TAIL.length;
  if (room < 0) throw new Error(`frame of ${frameBytes} bytes is too small for id ${id}`);
  if (text === 'ascii') return 'x'.repeat(room);
  const unitBytes = Buffer.byteLength(MULTIBYTE_UNIT);
  const units = Math.floor(room / unitBytes);
  return MULTIBYTE_UNIT.repeat(units) + 'x'.repeat(room - units * unitBytes);
}

/** The whole stream of a workload, in one buffer. */
export function generateWorkload(spec) {
  const { frames, frameBytes, text, streamBytes } = parseWorkload(spec);
  const out = Buffer.allocUnsafe(streamBytes);
  let at = 0;
  for (let id = 1; id <= frames; id++) {
    const line = `${HEAD(id)}${frameText(id, frameBytes, text)}${TAIL}\n`;
    const n = out.write(line, at, 'utf8');
    if (n !== frameBytes + 1) throw new Error(`frame ${id}: ${n} bytes, wanted ${frameBytes + 1}`);
    at += n;
  }
  return out;
}
