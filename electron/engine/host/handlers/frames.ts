/**
 * The frames domain: a page of a frame's bytes (the renderer never receives a whole large
 * frame), a payload search over a session's frames, and the matches inside one frame, for a
 * session of either kind. Owns: the latest search id of each session, so a newer search
 * supersedes one still running (frame-search.ts stops it at its next slice).
 */

import { needleOf } from '../../session/frame-search.js';
import { type HostContext, withHosted } from '../context.js';
import type { HandlerRegistry } from '../handler-registry.js';

/** Sessions whose latest search id is remembered (the oldest are forgotten first). */
const SEARCHES_KEPT = 256;

export function registerFrameHandlers(on: HandlerRegistry, ctx: HostContext): void {
  const latest = new Map<string, string>();
  on.on('frame:page', (p) =>
    withHosted(ctx, p.sessionId, (s) => s.framePage(p.seq, p.offset, p.length)),
  );
  on.on('frame:search', (p) =>
    withHosted(ctx, p.sessionId, (s) => {
      latest.delete(p.sessionId);
      latest.set(p.sessionId, p.searchId);
      if (latest.size > SEARCHES_KEPT) latest.delete(latest.keys().next().value as string);
      return s.searchFrames({
        needle: needleOf(p.query, p.caseSensitive),
        from: p.from ?? null,
        maxHits: p.maxHits,
        budgetMs: p.budgetMs,
        ...(p.dir === undefined ? {} : { dir: p.dir }),
        isCurrent: () => latest.get(p.sessionId) === p.searchId,
      });
    }),
  );
  on.on('frame:find', (p) =>
    withHosted(ctx, p.sessionId, (s) =>
      s.findInFrame(p.seq, needleOf(p.query, p.caseSensitive), p.from, p.maxHits),
    ),
  );
}
