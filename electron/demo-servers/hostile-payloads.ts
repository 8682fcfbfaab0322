/**
 * Demo `hostile-payloads`: valid JSON-RPC that breaks naive hosts — quotes, backslashes,
 * multibyte text, raw U+2028/U+2029 (the SDK's JSON.stringify leaves them unescaped, which is
 * legal JSON), a long run without spaces, many tiny content blocks and one giant field.
 */

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('hostile-payloads');
const longBytes = server.knobs.int('long-bytes');
const blockCount = server.knobs.int('blocks');
const giantBytes = server.knobs.int('giant-bytes');

type Block = CallToolResult['content'][number];
const text = (t: string): Block => ({ type: 'text', text: t });

const KINDS = {
  quotes: () => [text(`She said "hello", then 'goodbye'; JSON needs \\" and this: "}]}`)],
  backslashes: () => [
    text('C:\\Users\\demo\\new\\table \\u0041 \\\\server\\share \\n not a newline'),
  ],
  multibyte: () => [
    text('héllo wörld — ünïcödé, 日本語のテキスト, emoji 🧪🚀👩‍💻, combining e\u0301, flags 🇫🇷'),
  ],
  'line-separators': () => [
    text(
      'before\u2028after line separator\u2029after paragraph separator\r\nand a CRLF, a \r lone CR',
    ),
  ],
  'no-spaces': () => [text('a'.repeat(longBytes))],
  'many-blocks': () => Array.from({ length: blockCount }, (_, i) => text(String(i))),
  'giant-field': () => [text('g'.repeat(giantBytes))],
} satisfies Record<string, () => Block[]>;

type Kind = keyof typeof KINDS;
const KIND_NAMES = Object.keys(KINDS) as [Kind, ...Kind[]];

server.mcp.registerTool(
  'payload',
  {
    description: `Returns a hostile but valid payload: ${KIND_NAMES.join(', ')} or all.`,
    inputSchema: {
      kind: z.enum([...KIND_NAMES, 'all']).describe('Which payload to return'),
    },
  },
  async ({ kind }) => {
    const kinds = kind === 'all' ? KIND_NAMES : [kind];
    return { content: kinds.flatMap((k) => KINDS[k]()) };
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
