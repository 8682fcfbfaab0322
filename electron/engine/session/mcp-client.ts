/**
 * MCP client flow on top of a Session: initialize → notifications/initialized → tools/list
 * (following nextCursor) → tools/call, ping. Results are validated with the official SDK's
 * schemas; transport and framing stay Pipescope's own (the SDK's stdio reader is quadratic and
 * capped, see DESIGN.md).
 */
import {
  type InitializeResult,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestRecord } from '../../../shared/requests.js';
import type { Session } from './session.js';
import type { SendOptions } from './types.js';

export const CLIENT_INFO = { name: 'pipescope', version: '0.1.0' };
const MAX_TOOL_PAGES = 100;

export class McpFlowError extends Error {
  constructor(
    message: string,
    readonly record: RequestRecord | null,
  ) {
    super(message);
  }
}

async function result(
  session: Session,
  method: string,
  params: Record<string, unknown> | undefined,
  opts: SendOptions,
): Promise<unknown> {
  const { done } = session.send(method, params, opts);
  const { record, response } = await done;
  if (record.status !== 'completed' || !response) {
    const why = record.error ? `${record.error.code} ${record.error.message}` : record.status;
    throw new McpFlowError(`${method} ${why}`, record);
  }
  const parsed = JSON.parse(response.toString('utf8')) as { result?: unknown };
  return parsed.result;
}

export async function initialize(session: Session, timeoutMs?: number): Promise<InitializeResult> {
  const raw = await result(
    session,
    'initialize',
    { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    { timeoutMs },
  );
  const parsed = InitializeResultSchema.safeParse(raw);
  if (!parsed.success) {
    const why = `initialize result is malformed: ${parsed.error.message}`;
    // An answer that is no InitializeResult is a handshake that failed (DESIGN.md: a probe
    // that cannot initialize is never a pass).
    session.findings.raise(
      'handshake-failed',
      `initialize was answered, but not with an InitializeResult: ${parsed.error.message.slice(0, 300)}`,
      session.now(),
    );
    throw new McpFlowError(why, null);
  }
  await session.notify('notifications/initialized');
  return parsed.data;
}

export async function listTools(session: Session, timeoutMs?: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const raw = await result(session, 'tools/list', cursor ? { cursor } : undefined, { timeoutMs });
    const parsed = ListToolsResultSchema.safeParse(raw);
    if (!parsed.success)
      throw new McpFlowError(`tools/list result is malformed: ${parsed.error.message}`, null);
    tools.push(...parsed.data.tools);
    cursor = parsed.data.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** Sends tools/call with a progress token; returns the in-flight request. */
export function callTool(
  session: Session,
  name: string,
  args: Record<string, unknown>,
  opts: SendOptions = {},
): ReturnType<Session['send']> {
  return session.send('tools/call', { name, arguments: args }, { progress: true, ...opts });
}
