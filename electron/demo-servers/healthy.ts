/**
 * Demo `healthy`: what good looks like. `echo`, `health`, and a paginated `search` that
 * follows the result contract — a bounded page, structuredContent with nextCursor and
 * truncated, totalEstimate only when the server really knows it, and a text summary that
 * says what was omitted and how to continue.
 */

import * as z from 'zod';
import {
  createDemoServer,
  registerEcho,
  runMain,
  startDemoServer,
  textResult,
} from './lib/server.js';

const server = createDemoServer('healthy');
const pageSize = Math.max(1, server.knobs.int('page-size'));
const corpusSize = server.knobs.int('items');
const knowTotal = server.knobs.bool('know-total');
const startedAt = Date.now();

const CORPUS = Array.from({ length: corpusSize }, (_, i) => ({
  id: `item-${String(i + 1).padStart(4, '0')}`,
  title: `Item ${i + 1}: ${['alpha', 'beta', 'gamma', 'delta'][i % 4]} notes`,
}));

// Cursors are opaque to the client: an offset, base64url-encoded.
const encodeCursor = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');
function decodeCursor(cursor: string): number | undefined {
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

const itemSchema = z.object({ id: z.string(), title: z.string() });

server.mcp.registerTool(
  'search',
  {
    description: `Searches items by text; returns at most ${pageSize} per page with a cursor for more.`,
    inputSchema: {
      query: z.string().describe('Case-insensitive text to look for in titles'),
      cursor: z.string().optional().describe('nextCursor from the previous page'),
    },
    outputSchema: {
      items: z.array(itemSchema),
      nextCursor: z.string().optional(),
      truncated: z.boolean(),
      totalEstimate: z.number().optional(),
    },
  },
  async ({ query, cursor }) => {
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    if (offset === undefined) {
      return {
        ...textResult('Invalid cursor: pass nextCursor exactly as returned.'),
        isError: true,
      };
    }
    const needle = query.toLowerCase();
    const matches = CORPUS.filter((item) => item.title.toLowerCase().includes(needle));
    const items = matches.slice(offset, offset + pageSize);
    const end = offset + items.length;
    const truncated = end < matches.length;
    const nextCursor = truncated ? encodeCursor(end) : undefined;
    const remaining = matches.length - end;
    const summary = truncated
      ? `Showing results ${offset + 1}-${end}` +
        (knowTotal ? ` of ${matches.length}; ${remaining} more omitted.` : '; more omitted.') +
        ` Call search again with cursor "${nextCursor}" for the next page.`
      : `Showing results ${items.length ? offset + 1 : 0}-${end}; this is the last page.`;
    return {
      content: [
        { type: 'text', text: summary },
        { type: 'text', text: items.map((item) => `${item.id}  ${item.title}`).join('\n') },
      ],
      structuredContent: {
        items,
        ...(nextCursor !== undefined && { nextCursor }),
        truncated,
        // Only when known: a guessed total misleads the agent more than no total.
        ...(knowTotal && { totalEstimate: matches.length }),
      },
    };
  },
);

server.mcp.registerTool(
  'health',
  {
    description: 'Reports that the server is up, with its uptime and memory use.',
    inputSchema: {},
    outputSchema: { ok: z.boolean(), uptimeMs: z.number(), rssBytes: z.number() },
  },
  async () => {
    const status = {
      ok: true,
      uptimeMs: Date.now() - startedAt,
      rssBytes: process.memoryUsage().rss,
    };
    return { ...textResult(`ok, up ${status.uptimeMs} ms`), structuredContent: status };
  },
);
registerEcho(server);

runMain(server.id, () => startDemoServer(server));
