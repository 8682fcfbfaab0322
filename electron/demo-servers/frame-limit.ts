/**
 * Demo `frame-limit`: responses of an exact serialized size around a frame limit. `sized`
 * answers with a line of exactly `bytes` bytes (newline not counted); `under` and `over` aim
 * at the --limit knob. Raw JSON-RPC: exact sizes need control of the serialization, which the
 * SDK keeps to itself.
 */

import { readKnobs } from './lib/knobs.js';
import { type JsonRpcId, serializeResponse, startRawServer } from './lib/raw-rpc.js';
import { logLine } from './lib/stdio-writer.js';

const ID = 'frame-limit';
const knobs = readKnobs(ID);
const limit = knobs.int('limit');
const underBytes = Math.max(0, limit - knobs.int('under-by'));
const overBytes = limit + knobs.int('over-by');

/** A result whose response line is exactly `bytes` bytes: 'x' padding is one byte per char. */
function sizedResult(id: JsonRpcId, bytes: number): Record<string, unknown> {
  const empty = { content: [{ type: 'text', text: '' }] };
  const base = Buffer.byteLength(serializeResponse(id, empty));
  if (bytes < base) throw new Error(`smallest possible response for this id is ${base} bytes`);
  return { content: [{ type: 'text', text: 'x'.repeat(bytes - base) }] };
}

const noArgs = { type: 'object', properties: {}, additionalProperties: false };

startRawServer({
  name: `pipescope-demo-${ID}`,
  log: (message) => logLine(ID, message),
  tools: [
    {
      name: 'sized',
      description: 'Answers with a response line of exactly `bytes` bytes (without the newline).',
      inputSchema: {
        type: 'object',
        properties: {
          bytes: { type: 'integer', minimum: 0, description: 'Size of the response line' },
        },
        required: ['bytes'],
        additionalProperties: false,
      },
      async call(args, { id }) {
        const bytes = args.bytes;
        if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) {
          throw new Error('bytes must be a non-negative integer');
        }
        return sizedResult(id, bytes);
      },
    },
    {
      name: 'under',
      description: `Answers with a response line of ${underBytes} bytes (at or just under the limit).`,
      inputSchema: noArgs,
      call: async (_args, { id }) => sizedResult(id, underBytes),
    },
    {
      name: 'over',
      description: `Answers with a response line of ${overBytes} bytes (just over the limit).`,
      inputSchema: noArgs,
      call: async (_args, { id }) => sizedResult(id, overBytes),
    },
    {
      name: 'echo',
      description: 'Returns its text argument unchanged (a small request to check the session).',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'Text to echo back' } },
        required: ['text'],
      },
      call: async (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
    },
  ],
});
