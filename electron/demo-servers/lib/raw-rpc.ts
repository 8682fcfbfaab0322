/**
 * A minimal hand-written MCP stdio server loop, for scenarios that need byte-exact control of
 * what goes on stdout (the SDK serializes responses itself). It frames stdin on byte 0x0A
 * (never readline: U+2028 is legal inside JSON strings), answers initialize, tools/list,
 * tools/call and ping, tracks notifications/cancelled, and writes one line per message through
 * a queue that awaits 'drain'.
 */

import { writeChunked } from './stdio-writer.js';

export type JsonRpcId = string | number;
type Json = Record<string, unknown>;

export const DEFAULT_PROTOCOL_VERSION = '2025-06-18';
export const KNOWN_PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

export interface RawToolContext {
  id: JsonRpcId;
  /** Aborted when the client cancels this request. */
  signal: AbortSignal;
}

export interface RawTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (type: object). */
  inputSchema: Json;
  /** Returns the `result` of the tools/call response. */
  call(args: Json, ctx: RawToolContext): Promise<Json>;
}

export interface RawServerOptions {
  name: string;
  tools: RawTool[];
  log(message: string): void;
}

/** The exact bytes (without newline) the loop writes for a successful response. */
export function serializeResponse(id: JsonRpcId, result: Json): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

export function startRawServer(options: RawServerOptions): void {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const inFlight = new Map<JsonRpcId, AbortController>();
  let queue: Promise<void> = Promise.resolve();

  /** Queues one line; lines never interleave even when a write has to wait for 'drain'. */
  const writeLine = (line: string): Promise<void> => {
    const next = queue.then(() => writeChunked(process.stdout, `${line}\n`));
    queue = next.catch((error: unknown) => options.log(`stdout write failed: ${String(error)}`));
    return queue;
  };
  const reply = (id: JsonRpcId, result: Json) => writeLine(serializeResponse(id, result));
  const fail = (id: JsonRpcId | null, code: number, message: string) =>
    writeLine(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));

  async function callTool(id: JsonRpcId, params: Json): Promise<void> {
    const tool = typeof params.name === 'string' ? tools.get(params.name) : undefined;
    if (!tool) return void fail(id, -32602, `Unknown tool: ${String(params.name)}`);
    const args = isObject(params.arguments) ? params.arguments : {};
    const controller = new AbortController();
    inFlight.set(id, controller);
    try {
      const result = await tool.call(args, { id, signal: controller.signal });
      // A cancelled request gets no response (MCP cancellation: SHOULD NOT respond).
      if (!controller.signal.aborted) await reply(id, result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!controller.signal.aborted)
        await reply(id, { content: [{ type: 'text', text: message }], isError: true });
    } finally {
      inFlight.delete(id);
    }
  }

  function handle(message: Json): void {
    const { method, id } = message;
    const params = isObject(message.params) ? message.params : {};
    if (typeof method !== 'string') return; // a response to us, or junk: nothing to answer
    const isRequest = typeof id === 'string' || typeof id === 'number';
    switch (method) {
      case 'initialize': {
        if (!isRequest) return;
        const asked = params.protocolVersion;
        const version =
          typeof asked === 'string' && KNOWN_PROTOCOL_VERSIONS.includes(asked)
            ? asked
            : DEFAULT_PROTOCOL_VERSION;
        void reply(id, {
          protocolVersion: version,
          capabilities: { tools: {} },
          serverInfo: { name: options.name, version: '1.0.0' },
        });
        return;
      }
      case 'notifications/initialized':
        return;
      case 'notifications/cancelled': {
        const target = params.requestId;
        if (typeof target === 'string' || typeof target === 'number') inFlight.get(target)?.abort();
        return;
      }
      case 'ping':
        if (isRequest) void reply(id, {});
        return;
      case 'tools/list':
        if (isRequest) {
          const list = [...tools.values()].map(({ name, description, inputSchema }) => ({
            name,
            description,
            inputSchema,
          }));
          void reply(id, { tools: list });
        }
        return;
      case 'tools/call':
        if (isRequest) void callTool(id, params);
        return;
      default:
        if (isRequest) void fail(id, -32601, `Method not found: ${method}`);
    }
  }

  function handleLine(bytes: Buffer): void {
    const end =
      bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const text = bytes.toString('utf8', 0, end);
    if (text.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      void fail(null, -32700, 'Parse error');
      return;
    }
    if (isObject(message)) handle(message);
    else void fail(null, -32600, 'Invalid request (batches are not supported)');
  }

  let pending: Buffer[] = [];
  process.stdin.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, nl));
      handleLine(Buffer.concat(pending));
      pending = [];
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  process.stdin.on('end', () => {
    options.log('stdin closed, exiting');
    void queue.then(() => process.exit(0));
  });
  options.log(`ready (pid ${process.pid})`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
