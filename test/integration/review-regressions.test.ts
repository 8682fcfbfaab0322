/**
 * Regressions found in review: each test reproduces the trigger that once broke a contract.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../dist/electron/engine/session-manager.js';
import type { HostEvent } from '../../dist/shared/host-api.js';
import type { ProbeReport } from '../../dist/shared/report.js';
import {
  expectByteInvariant,
  findingCodes,
  inlineServer,
  runCli,
  startSession,
  stopAllSessions,
  waitFor,
} from './helpers.js';

afterEach(stopAllSessions);

/** Answers the handshake; a `slow` call never answers, and a cancellation makes it exit. */
const exitsOnCancel = inlineServer(`
function onMessage(m) {
  if (m.method === 'initialize') reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } });
  else if (m.method === 'tools/list') reply(m.id, { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] });
  else if (m.method === 'notifications/cancelled') process.exit(0);
}`);

describe('review regressions', () => {
  it('probe --json still prints its report when the server exits on the cancellation', async () => {
    const r = await runCli([
      'probe',
      '--json',
      '--call',
      'slow',
      '--cancel-after-ms',
      '200',
      '--timeout-ms',
      '5000',
      '--',
      exitsOnCancel.command,
      ...exitsOnCancel.args,
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as ProbeReport;
    expect(report.findings.map((f) => f.code)).toContain('server-exited');
    expect(report.requests.find((q) => q.method === 'tools/call')?.status).toBe('cancelled');
  });

  it('a stdout held open outside the group still ends the line in progress as partial', async () => {
    const session = startSession({
      command: 'sh',
      args: ['-c', `setsid sleep 3 & printf '{"jsonrpc":"2.0","par'; exit 0`],
    });
    await session.whenStarted();
    await waitFor(() => session.exit !== null, 5000, 'the shell to exit');
    await session.stop();
    const c = session.counters();
    expect(c?.partialBytesAtEof).toBe(21);
    expectByteInvariant(session);
    expect(findingCodes(session)).toContain('truncated-at-exit');
  });

  it('a server that cannot start leaves no timer running and no snapshots flowing', async () => {
    const manager = new SessionManager();
    const snapshots: HostEvent[] = [];
    const off = manager.subscribe((e) => {
      if (e.type === 'snapshot') snapshots.push(e);
    });
    const started = await manager.handle('session:start', {
      server: { command: '/nonexistent/pipescope-x' },
    });
    expect(started.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // let the failure settle
    const settled = snapshots.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(snapshots.length - settled).toBe(0);
    off();
    await manager.stopAll();
  });
});
