/**
 * The cases where the host misbehaves the way real hosts do, each on a server of its own:
 * stderr read slowly (`stderr-slow`), the reader paused during the largest call then resumed
 * (`paused-host`), a 1 MiB request written while the server answers (`stdin-while-writing`),
 * and stdin closed at the end (`shutdown`). Each waits only within its budgets.
 */
import { MIB } from '../../../shared/units.js';
import type { CheckSession, StopOutcome } from './check-session.js';
import type { BatteryContext } from './context.js';
import type { Roles } from './plan.js';
import { brief, duration, failed, list, passed, size, skipped, type Verdict } from './verdict.js';

/** stderr-slow reads the server's stderr at this rate (bytes a second). */
export const STDERR_SLOW_RATE = 64 * 1024;
/** Under slow stderr a call may take this much longer than it did in the calls stage (ms). */
const STDERR_SLACK_MS = 2000;
/** The small request that proves the session still answers (ms). */
const PING_BUDGET_MS = 2000;
/** The large request of stdin-while-writing. */
export const LARGE_REQUEST_BYTES = MIB;
const LARGE_REQUEST_BUDGET_MS = 5000;

async function handshaken(
  ctx: BatteryContext,
  s: CheckSession,
  what: string,
): Promise<Verdict | null> {
  const hs = await s.handshake(ctx.callTimeoutMs);
  if (hs.ok) return null;
  await s.stop();
  return failed(
    `the handshake failed ${what}: ${hs.why}`,
    s.findings(['handshake-failed', 'server-exited']),
  );
}

async function pingWithin(s: CheckSession, ms: number): Promise<string | null> {
  const r = await s.request('ping', undefined, ms);
  if (r.status === 'completed') return null;
  return r.status === 'failed' && r.error
    ? `ping failed: ${brief(r.error.message, 120)}`
    : `ping got no answer within ${duration(ms)}`;
}

/**
 * stderr-slow, and shutdown on the same server: stderr read slowly from the start, the
 * handshake, the quick calls again and a ping; then stdin is closed (the pace lifted, as the
 * stop drains everything) and the exit is judged. One server for both: it is idle by then.
 */
export async function stderrSlowAndShutdown(
  ctx: BatteryContext,
  roles: Roles,
): Promise<{ stderr: Verdict; shutdown: Verdict; stopMs: number }> {
  const s = await ctx.open('stderr-slow');
  s.session.setStderrPace(STDERR_SLOW_RATE);
  const t0 = s.now();
  const bad = await handshaken(ctx, s, `with stderr read at ${size(STDERR_SLOW_RATE)}/s`);
  if (bad)
    return {
      stderr: bad,
      shutdown: skipped('the handshake failed: nothing to shut down'),
      stopMs: 0,
    };
  const problems: string[] = [];
  const calls: Record<string, unknown>[] = [];
  for (const o of roles.quick) {
    const before = o.latencyMs ?? 0;
    const budget = Math.min(o.tool.timeoutMs, before + STDERR_SLACK_MS);
    const c = await s.call(o.tool.name, o.tool.args, budget);
    const ms = c.record.latencyMs;
    calls.push({
      tool: o.tool.name,
      drainedMs: Math.round(before),
      slowMs: ms === null ? null : Math.round(ms),
    });
    if (c.record.status !== 'completed')
      problems.push(
        `${o.tool.name} did not answer within ${duration(budget)} (it took ${duration(before)} with stderr drained)`,
      );
  }
  // A server that does not answer ping with stderr drained either is not judged on it here.
  const ping = roles.pingOk ? await pingWithin(s, PING_BUDGET_MS) : null;
  if (ping) problems.push(ping);
  const m = s.session.liveMetrics();
  const elapsed = s.now() - t0;
  const stopAt = s.now();
  const stop = await s.stop();
  const stopMs = s.now() - stopAt;
  const shutdown = shutdownVerdict(
    s,
    stop,
    roles.quick.map((o) => o.tool.name),
  );
  // Read at the limit most of the time: the server wrote faster than this host reads.
  const saturated = m.stderrBytes >= (0.7 * STDERR_SLOW_RATE * elapsed) / 1000;
  const evidence = {
    bytesPerSecond: STDERR_SLOW_RATE,
    stderrBytesRead: m.stderrBytes,
    ms: Math.round(elapsed),
    writerOutpacedReader: saturated,
    calls,
  };
  const exited = s.findings(['server-exited']);
  const rate = `${size(STDERR_SLOW_RATE)}/s`;
  let stderr: Verdict;
  if (exited.length > 0) stderr = failed(brief(exited[0].message), exited, evidence);
  else if (problems.length > 0) {
    const why = saturated
      ? ' — it wrote stderr faster than that the whole time: its answers wait on its own logging'
      : '';
    stderr = failed(`with stderr read at ${rate}: ${problems.join('; ')}${why}`, [], evidence);
  } else {
    const what = list([
      'the handshake',
      ...roles.quick.map((q) => q.tool.name),
      ...(roles.pingOk ? ['a ping'] : []),
    ]);
    stderr = passed(
      `${what} answered with stderr read at ${rate} (${size(m.stderrBytes)} read in ${duration(elapsed)}` +
        `${saturated ? ', the server writing faster than that' : ''}; Pipescope keeps stderr in a bounded ring)`,
      evidence,
    );
  }
  return { stderr, shutdown, stopMs };
}

export async function pausedHostCase(ctx: BatteryContext, roles: Roles): Promise<Verdict> {
  const largest = roles.largest;
  if (!largest)
    return skipped('no call was answered in the calls stage: there is no answer to hold back');
  const t = largest.tool;
  const s = await ctx.open('paused-host');
  const bad = await handshaken(ctx, s, '');
  if (bad) return bad;
  s.session.setReaderMode('paused');
  const call = s.start(t.name, t.args);
  // Held: nothing is read meanwhile (a small answer waits in the pipe, a large one blocks the
  // server in write()). Only the server's exit ends the pause early.
  await s.waitFor(() => call.settled, ctx.pauseMs, 50);
  return resumeAndJudge(ctx, s, call, largest.responseBytes);
}

async function resumeAndJudge(
  ctx: BatteryContext,
  s: CheckSession,
  call: ReturnType<CheckSession['start']>,
  drainedBytes: number | null,
): Promise<Verdict> {
  const name = (call.record.method === 'tools/call' && callName(s, call.record.id)) || 'the call';
  const resumedAt = s.now();
  s.session.setReaderMode('drain');
  const budget = ctx.callTimeoutMs;
  await s.waitFor(() => call.settled, budget, 20);
  const r = call.record;
  const evidence: Record<string, unknown> = { tool: name, pauseMs: ctx.pauseMs, drainedBytes };
  const problems: string[] = [];
  if (r.status === 'completed') {
    evidence.bytes = r.responseBytes;
    evidence.afterResumeMs = Math.round(r.sentAt + (r.latencyMs ?? 0) - resumedAt);
    const intact = intactAnswer(call.response, r.id);
    if (intact !== null) problems.push(`the answer to ${name} is not intact: ${intact}`);
  } else
    problems.push(
      `${name} was not answered within ${duration(budget)} of the reader resuming (${r.status})`,
    );
  // (A line that is not JSON is stdout-clean's to judge: a log line is no damaged answer.)
  if (problems.length === 0) {
    const ping = await pingWithin(s, PING_BUDGET_MS);
    if (ping) problems.push(`after the answer, ${ping}`);
  }
  // The finding is expected while paused; its proof says whether the server sat in write().
  const stall = s.findings(['server-write-blocked'])[0];
  const inWrite = stall?.evidence?.syscall?.name?.startsWith('write') === true;
  evidence.serverWriteBlocked = stall ? { message: stall.message, inWrite } : null;
  await s.stop();
  const c = s.session.counters();
  if (c && c.stdoutBytes !== c.lineBytes + c.partialBytesAtEof)
    problems.push('stdout bytes do not add up to its lines');
  const fatal = s.findings(['server-exited', 'truncated-at-exit', 'oversize-frame']);
  if (problems.length > 0 || fatal.length > 0)
    return failed(problems.length ? problems.join('; ') : brief(fatal[0].message), fatal, evidence);
  const same = drainedBytes === r.responseBytes ? ', the same bytes as read at once' : '';
  const held = inWrite
    ? 'the server blocked in write() meanwhile'
    : 'stdout stalled meanwhile, as it must';
  return passed(
    `${name}: ${size(r.responseBytes)} held ${duration(ctx.pauseMs)} behind a paused reader (${held}), ` +
      `then delivered whole${same}; a ping answered after it`,
    evidence,
  );
}

function callName(s: CheckSession, id: string | number): string | null {
  const p = s.session.requests.params(id) as { name?: unknown } | undefined;
  return typeof p?.name === 'string' ? p.name : null;
}

/** Why an answer line is not the whole JSON-RPC response to `id` (null: it is). */
function intactAnswer(
  data: { length: number; toString(enc?: BufferEncoding): string } | null,
  id: string | number,
): string | null {
  if (data === null) return 'its bytes were not kept';
  try {
    const msg = JSON.parse(data.toString('utf8')) as { id?: unknown; result?: unknown };
    if (msg.id !== id) return `it answers id ${JSON.stringify(msg.id)}`;
    if (msg.result === undefined) return 'it has no result';
    return null;
  } catch (e) {
    return `it is not JSON (${(e as Error).message.slice(0, 80)})`;
  }
}

export async function stdinWhileWritingCase(ctx: BatteryContext, roles: Roles): Promise<Verdict> {
  const s = await ctx.open('stdin-while-writing');
  const bad = await handshaken(ctx, s, '');
  if (bad) return bad;
  const tool = roles.largest?.tool ?? null;
  const call = tool ? s.start(tool.name, tool.args) : null;
  const pad = 'x'.repeat(LARGE_REQUEST_BYTES);
  const big = await s.request('ping', { _meta: { pad } }, LARGE_REQUEST_BUDGET_MS);
  const problems: string[] = [];
  // Any answer shows the request was read (an error too: the server may refuse the padding).
  if (big.responseBytes === null)
    problems.push(
      `a ${size(big.requestBytes)} request got no answer within ${duration(LARGE_REQUEST_BUDGET_MS)}`,
    );
  if (call && tool) {
    const c = await s.finish(call, Math.max(1000, tool.timeoutMs - (s.now() - call.record.sentAt)));
    if (c.record.status !== 'completed')
      problems.push(`${tool.name} was not answered meanwhile (${c.record.status})`);
  }
  const m = s.session.liveMetrics();
  await s.stop();
  const found = s.findings(['stdin-blocked', 'server-exited']);
  const evidence = {
    requestBytes: big.requestBytes,
    tool: tool?.name ?? null,
    answerBytes: call?.record.responseBytes ?? null,
    stdinWaitMs: m.stdinWaitMs,
    pingMs: big.latencyMs === null ? null : Math.round(big.latencyMs),
  };
  if (found.length > 0 || problems.length > 0) {
    const lead = found.length > 0 ? brief(found[0].message) : '';
    return failed(list([lead, ...problems].filter(Boolean)), found, evidence);
  }
  const during = tool
    ? ` while ${tool.name} answered (${size(call?.record.responseBytes ?? null)})`
    : ' (no tool answered in the calls stage: it went alone)';
  return passed(
    `a ${size(big.requestBytes)} request was read and answered in ${duration(big.latencyMs)}${during}; stdin waited ${duration(m.stdinWaitMs)}`,
    evidence,
  );
}

/** The server exited on stdin EOF within the grace period, leaving nothing behind. */
function shutdownVerdict(s: CheckSession, stop: StopOutcome, calls: string[]): Verdict {
  const grace = s.session.config.stopGraceMs.afterStdinClose;
  const left = s.findings(['processes-left']);
  const after = ` (after ${list(['the handshake', ...calls, 'a ping'])})`;
  const evidence = {
    graceMs: grace,
    exit: stop.exit,
    exitAfterMs: stop.exitAfterMs === null ? null : Math.round(stop.exitAfterMs),
    calls,
  };
  if (stop.exitedBeforeStop)
    return failed(
      `the server exited on its own${after}, before its stdin closed`,
      s.findings(['server-exited']),
      evidence,
    );
  const exit = stop.exit;
  let problem: string | null = null;
  if (!exit) problem = 'no exit was seen';
  else if (exit.signal === 'SIGKILL')
    problem = `it ignored stdin EOF and SIGTERM${after}: SIGKILL ended it`;
  else if (exit.signal !== null || (stop.exitAfterMs ?? 0) > grace)
    problem = `it did not exit within ${duration(grace)} of stdin EOF${after}: ${exit.signal ?? 'the exit after SIGTERM'} ended it`;
  if (problem || left.length > 0)
    return failed(
      list([problem ?? '', left.length ? brief(left[0].message) : ''].filter(Boolean)),
      left,
      evidence,
    );
  return passed(
    `exited with code ${exit?.code}, ${duration(stop.exitAfterMs)} after its stdin closed${after}`,
    evidence,
  );
}
