/**
 * Launching a session for SessionManager: from a validated `session:start` payload to a Session
 * and its SessionInfo (a catalog demo or a custom server), and the MCP handshake that fills in
 * serverInfo and the tool list. Pure wiring over Session and mcp-client; owns no state.
 */

import type { ChannelPayload } from '../../../shared/host-api.js';
import { err, ok, type Result } from '../../../shared/result.js';
import type { SessionInfo } from '../../../shared/session-info.js';
import { HANDSHAKE_TIMEOUT_MS } from '../../../shared/session-options.js';
import { findDemo } from '../../demo-servers/catalog.js';
import { demoCommand } from '../../demo-servers/launch.js';
import { initialize, listTools } from '../session/mcp-client.js';
import { Session } from '../session/session.js';
import { processAvailability } from './live-session.js';

interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  title: string;
  demoId: string | null;
}

function planLaunch(p: ChannelPayload<'session:start'>): Result<LaunchPlan> {
  if (!('demo' in p)) {
    const { command, args, env, cwd, name } = p.server;
    const title = name ?? command.split(/[\\/]/).pop() ?? command;
    return ok({ command, args, env, cwd, title, demoId: null });
  }
  const scenario = findDemo(p.demo.id);
  if (!scenario) return err('ENODEMO', `unknown demo ${p.demo.id}`);
  try {
    const { command, args } = demoCommand(p.demo.id, p.demo.knobs);
    // Inside Electron, process.execPath is the app: make it behave as Node for the server.
    const env: Record<string, string> = process.versions.electron
      ? { ELECTRON_RUN_AS_NODE: '1' }
      : {};
    return ok({ command, args, env, cwd: undefined, title: scenario.id, demoId: scenario.id });
  } catch (e) {
    return err('EKNOB', (e as Error).message);
  }
}

/** A Session (not started yet: it spawns on construction) and the info hosts show of it. */
export function createSession(
  p: ChannelPayload<'session:start'>,
): Result<{ session: Session; info: SessionInfo }> {
  const plan = planLaunch(p);
  if (!plan.ok) return plan;
  const { command, args, env, cwd, title, demoId } = plan.value;
  const session = new Session({
    command,
    args,
    env,
    cwd,
    readerMode: p.readerMode,
    consumerDelayMs: p.consumerDelayMs,
    overloadPolicy: p.overloadPolicy,
    onOversize: p.onOversize,
    maxFrameBytes: p.maxFrameBytes,
    requestTimeoutMs: p.requestTimeoutMs,
    resultBudgetBytes: p.resultBudgetBytes,
    hostProfile: p.hostProfile,
  });
  const info: SessionInfo = {
    id: session.id,
    title,
    command,
    args,
    cwd: cwd ?? null,
    envNames: Object.keys(env),
    demoId,
    pid: null,
    state: 'starting',
    exit: null,
    startError: null,
    serverInfo: null,
    handshakeError: null,
    tools: [],
    readerMode: session.config.readerMode,
    consumerDelayMs: session.config.consumerDelayMs,
    overloadPolicy: session.config.overloadPolicy,
    onOversize: session.config.onOversize,
    maxFrameBytes: session.config.maxFrameBytes,
    resultBudgetBytes: session.config.resultBudgetBytes,
    hostProfile: session.config.hostProfile,
    budgets: { ...session.config.budgets },
    startedAt: Date.now(),
    recording: null,
    trace: null,
    process: processAvailability(session),
  };
  return ok({ session, info });
}

/** initialize + tools/list, recorded in `info` (serverInfo and tools, or handshakeError). */
export async function handshake(session: Session, info: SessionInfo): Promise<void> {
  // The handshake always drains (DESIGN.md): a paused start would deadlock initialize.
  const mode = session.config.readerMode;
  if (mode !== 'drain') session.setReaderMode('drain');
  try {
    const init = await initialize(session, HANDSHAKE_TIMEOUT_MS);
    info.serverInfo = {
      name: init.serverInfo.name,
      version: init.serverInfo.version,
      protocolVersion: init.protocolVersion,
    };
    const tools = await listTools(session, HANDSHAKE_TIMEOUT_MS);
    info.tools = tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as Record<string, unknown>,
    }));
  } catch (e) {
    info.handshakeError = e instanceof Error ? e.message : String(e);
  } finally {
    if (mode !== 'drain' && session.state === 'running') session.setReaderMode(mode);
  }
}
