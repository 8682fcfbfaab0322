/**
 * Requests a person sends to a running server: a tool call (from the composer), any method, a
 * ping, a cancellation of one of ours, and a replay of a past request under a new id.
 */
import { err, ok } from '../../../../shared/result.js';
import { callTool } from '../../session/mcp-client.js';
import { type HostContext, withRunning } from '../context.js';
import type { HandlerRegistry } from '../handler-registry.js';

export function registerRequestHandlers(on: HandlerRegistry, ctx: HostContext): void {
  on.on('request:call-tool', (p) =>
    withRunning(ctx, p.sessionId, (s) => ok({ requestId: callTool(s.session, p.name, p.args).id })),
  );
  on.on('request:send', (p) =>
    withRunning(ctx, p.sessionId, (s) =>
      ok({ requestId: s.session.send(p.method, p.params, { progress: true }).id }),
    ),
  );
  on.on('request:ping', (p) =>
    withRunning(ctx, p.sessionId, (s) => ok({ requestId: s.session.send('ping').id })),
  );
  on.on('request:cancel', (p) =>
    withRunning(ctx, p.sessionId, (s) => {
      const r = s.session.cancel(p.requestId, p.reason);
      return r.ok ? ok(null) : err('ECANCEL', r.error);
    }),
  );
  on.on('request:replay', (p) =>
    withRunning(ctx, p.sessionId, (s) => {
      const sent = s.session.replay(p.requestId);
      return sent
        ? ok({ requestId: sent.id })
        : err('EREPLAY', `request ${p.requestId} cannot be replayed`);
    }),
  );
}
