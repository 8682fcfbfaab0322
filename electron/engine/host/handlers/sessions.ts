/**
 * Sessions: the demo catalog, the session list, starting a server (a demo or a custom command)
 * and again in its place (Restart, Edit & retry), and what a person does to a running one
 * (stop, close one or many, the recovery probe, reader mode, consumer delay, transport limits,
 * recording).
 */
import { existsSync } from 'node:fs';
import type { ChannelPayload } from '../../../../shared/host-api.js';
import { err, ok, type Result } from '../../../../shared/result.js';
import { isEnded, type SessionInfo } from '../../../../shared/session-info.js';
import { DEMO_CATALOG } from '../../../demo-servers/catalog.js';
import { SessionError } from '../../session/types.js';
import { type HostContext, withHosted, withLive } from '../context.js';
import type { HandlerRegistry } from '../handler-registry.js';
import { createSession, handshake } from '../launch.js';
import { configView, withKeptEnv } from '../restart-config.js';

/** Sessions starting or running at once. */
export const MAX_SESSIONS = 32;

export function registerSessionHandlers(on: HandlerRegistry, ctx: HostContext): void {
  on.on('demo:list', async () => ok([...DEMO_CATALOG]));
  on.on('session:list', async () => ok(ctx.infos()));
  on.on('session:start', (p) => start(ctx, p));
  on.on('session:stop', (p) =>
    withHosted(ctx, p.sessionId, async (s) => {
      await s.stop();
      return ok(null);
    }),
  );
  on.on('session:close', (p) =>
    withHosted(ctx, p.sessionId, async (s) => {
      await s.close();
      return ok(null);
    }),
  );
  on.on('session:close-many', (p) => closeMany(ctx, p.sessionIds, p.onlyEnded === true));
  on.on('session:config', (p) =>
    withLive(ctx, p.sessionId, async (s) =>
      s.launch ? ok(configView(s.launch)) : err('ENOCONFIG', 'this session has no start config'),
    ),
  );
  on.on('session:restart', (p) => restart(ctx, p));
  on.on('session:recover', (p) =>
    withLive(ctx, p.sessionId, async (s) =>
      ok(await s.session.recover(undefined, { awaitQueue: true })),
    ),
  );
  on.on('session:set-reader-mode', (p) =>
    withLive(ctx, p.sessionId, (s) => {
      s.session.setReaderMode(p.mode);
      s.info.readerMode = p.mode;
      return ok(null);
    }),
  );
  on.on('session:set-consumer-delay', (p) =>
    withLive(ctx, p.sessionId, (s) => {
      s.session.setConsumerDelay(p.ms);
      s.info.consumerDelayMs = p.ms;
      return ok(null);
    }),
  );
  on.on('session:set-limits', (p) =>
    withLive(ctx, p.sessionId, (s) => {
      s.session.setLimits(p);
      const c = s.session.config;
      Object.assign(s.info, {
        maxFrameBytes: c.maxFrameBytes,
        onOversize: c.onOversize,
        overloadPolicy: c.overloadPolicy,
      });
      return ok(null);
    }),
  );
  on.on('session:record', (p) =>
    withLive(ctx, p.sessionId, (s) => s.record(p.record, p.path, p.overwrite, p.redact)),
  );
}

type StartPayload = ChannelPayload<'session:start'>;

async function start(ctx: HostContext, p: StartPayload): Promise<Result<SessionInfo>> {
  return launchSession(ctx, p, null);
}

/** The same config again (or an edit of it) in the place of the session `p.sessionId`. */
async function restart(
  ctx: HostContext,
  p: ChannelPayload<'session:restart'>,
): Promise<Result<SessionInfo>> {
  const old = ctx.live(p.sessionId);
  if (!old) return err('ENOSESSION', `no live session ${p.sessionId}`);
  if (!old.launch) return err('ENOCONFIG', 'this session has no start config to run again');
  const next = p.start ? withKeptEnv(p.start, old.launch, p.keepEnv ?? []) : old.launch;
  // A restart is a stop and a start: the old server is over before the new one spawns.
  if (!isEnded(old.session.state)) await old.stop();
  return launchSession(ctx, next, { id: old.id, title: p.start ? null : old.info.title });
}

/**
 * Spawns `p` and registers it, in the place of `replacing` when given (its tab, and its name
 * unless an edit gives another), then waits for the spawn and runs the handshake behind it.
 */
async function launchSession(
  ctx: HostContext,
  p: StartPayload,
  replacing: { id: string; title: string | null } | null,
): Promise<Result<SessionInfo>> {
  // Sessions still starting count too, or simultaneous starts would all pass the cap.
  if (ctx.liveCount() >= MAX_SESSIONS)
    return err('ELIMIT', `at most ${MAX_SESSIONS} running sessions`);
  const created = createSession(p);
  if (!created.ok) return created;
  const { session, info } = created.value;
  info.title = replacing?.title ?? ctx.uniqueTitle(info.title, replacing?.id);
  const live = ctx.adopt(session, info, {
    launch: p,
    ...(replacing ? { replacing: replacing.id } : {}),
  });
  if (replacing) ctx.sessionsChanged();
  try {
    await session.whenStarted();
    info.pid = session.pid;
  } catch (e) {
    const failed = startFailure(e, info.cwd);
    info.startError = failed.message;
    info.startErrorCode = failed.code;
  }
  info.state = session.state;
  ctx.sessionsChanged();
  if (!info.startError) {
    void handshake(session, info).then(() => {
      live.deltas.touch();
      ctx.sessionsChanged();
    });
  }
  return ok(info);
}

/**
 * The start error in words, with its code. Node says ENOENT both for a command that is not
 * found and for a working folder that does not exist: the folder is checked to tell them apart.
 */
export function startFailure(e: unknown, cwd: string | null): { code: string; message: string } {
  if (!(e instanceof SessionError)) return { code: 'ESPAWN', message: String(e) };
  if (e.code === 'ENOENT' && cwd && !existsSync(cwd))
    return { code: 'ENOCWD', message: `cannot start: the working folder ${cwd} does not exist` };
  return { code: e.code, message: e.message };
}

/** Closes each session (their stop ladders run at once); with `onlyEnded`, running ones stay. */
async function closeMany(
  ctx: HostContext,
  ids: readonly string[],
  onlyEnded: boolean,
): Promise<Result<{ closed: string[]; kept: string[] }>> {
  const closed: string[] = [];
  const kept: string[] = [];
  const closing: Promise<void>[] = [];
  for (const id of new Set(ids)) {
    const hosted = ctx.find(id);
    const live = ctx.live(id);
    if (!hosted || (onlyEnded && live && !isEnded(live.session.state))) {
      kept.push(id);
      continue;
    }
    closed.push(id);
    closing.push(hosted.close());
  }
  await Promise.all(closing);
  return ok({ closed, kept });
}
