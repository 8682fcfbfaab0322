/**
 * Traces: opening one from a path or an upload (a dropped file, in chunks), seeking it,
 * replaying it against a server, and exporting it (or a live session's recording).
 */
import { err } from '../../../../shared/result.js';
import { type HostContext, withHosted } from '../context.js';
import type { HandlerRegistry } from '../handler-registry.js';

export function registerTraceHandlers(on: HandlerRegistry, ctx: HostContext): void {
  on.on('trace:open', (p) => ctx.traces.open(p.path));
  on.on('trace:upload', (p) => ctx.traces.upload(p));
  on.on('trace:seek', (p) => ctx.traces.seek(p.traceId, p.t));
  on.on('trace:replay', (p) => ctx.traces.replay(p.traceId, p));
  on.on('trace:export', async (p) => {
    if (p.traceId === undefined)
      return withHosted(ctx, p.sessionId ?? '', (s) => s.exportTrace(p.format));
    const trace = ctx.traces.get(p.traceId);
    return trace ? trace.exportTrace(p.format) : err('ENOTRACE', `no trace ${p.traceId}`);
  });
}
