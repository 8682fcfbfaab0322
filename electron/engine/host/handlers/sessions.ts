/**
 * Sessions: the demo catalog, the session list, starting a server (a demo or a custom command)
 * and what a person does to a running one (stop, close, the recovery probe, reader mode,
 * consumer delay, transport limits, recording).
 */
import type { ChannelPayload } from '../../../../shared/host-api.js';
import { err, ok, type Result } from '../../../../shared/result.js';
import type { SessionInfo } from '../../../../shared/session-info.js';
import { DEMO_CATALOG } from '../../../demo-servers/catalog.js';
import { SessionError } from '../../session/types.js';
import { type HostContext, withHosted, withLive } from '../context.js';
import type { HandlerRegistry } from '../handler-registry.js';
import { createSession, handshake } from '../launch.js';

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

async function start(
  ctx: HostContext,
  p: ChannelPayload<'session:start'>,
): Promise<Result<SessionInfo>> {
  // Sessions still starting count too, or simultaneous starts would all pass the cap.
  if (ctx.liveCount() >= MAX_SESSIONS)
    return err('ELIMIT', `at most ${MAX_SESSIONS} running sessions`);
  const created = createSession(p);
  if (!created.ok) return created;
  const { session, info } = created.value;
  const live = ctx.adopt(session, info);
  try {
    await session.whenStarted();
    info.pid = session.pid;
  } catch (e) {
    info.startError = e instanceof SessionError ? e.message : String(e);
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
