/** A page of a frame's bytes (the renderer never receives a whole large frame), of either kind. */

import { type HostContext, withHosted } from '../context.js';
import type { HandlerRegistry } from '../handler-registry.js';

export function registerFrameHandlers(on: HandlerRegistry, ctx: HostContext): void {
  on.on('frame:page', (p) =>
    withHosted(ctx, p.sessionId, (s) => s.framePage(p.seq, p.offset, p.length)),
  );
}
