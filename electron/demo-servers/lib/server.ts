/**
 * The common frame of every SDK-based demo server: an McpServer named after the scenario,
 * the stdio transport, a start-up line on stderr, and the small `echo` tool most scenarios
 * keep so a host can check the session still answers (the recovery probe of DESIGN.md).
 */

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { type Knobs, readKnobs } from './knobs.js';
import { logLine } from './stdio-writer.js';

export interface DemoServer {
  id: string;
  mcp: McpServer;
  knobs: Knobs;
  log(message: string): void;
}

export interface CreateOptions {
  /** Declare the logging capability (needed to send notifications/message). */
  logging?: boolean;
}

export function createDemoServer(id: string, options: CreateOptions = {}): DemoServer {
  const knobs = readKnobs(id);
  const mcp = new McpServer(
    { name: `pipescope-demo-${id}`, version: '1.0.0' },
    { capabilities: options.logging ? { logging: {} } : {} },
  );
  return { id, mcp, knobs, log: (message) => logLine(id, message) };
}

/** Connects over stdio (or the given transport) and says so on stderr. */
export async function startDemoServer(
  server: DemoServer,
  transport: Transport = new StdioServerTransport(),
): Promise<void> {
  await server.mcp.connect(transport);
  server.log(`ready (pid ${process.pid})`);
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** `echo {text}`: the tiny request that proves the session is still alive. */
export function registerEcho(server: DemoServer): void {
  server.mcp.registerTool(
    'echo',
    {
      description: 'Returns its text argument unchanged (a small request to check the session).',
      inputSchema: {
        text: z.string().describe('Text to echo back'),
        pad: z.string().optional().describe('Ignored filler, to make the request itself large'),
      },
    },
    async ({ text }) => textResult(text),
  );
}

/** Runs `main` and turns a start-up failure into a message and exit code 1. */
export function runMain(id: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    logLine(
      id,
      `fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  });
}
