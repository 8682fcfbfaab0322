/**
 * "Attach to a running server" (the start screen): the processes that look like MCP servers
 * some host started (`attach:list`, `pipescope attach --list`) and one watch window over one of
 * them (`attach:run`, `pipescope attach <pid>`). Read-only: nothing is started, stopped or
 * written to; the report is the CLI's (shared/attach.ts).
 */
import { err, ok } from '../../../../shared/result.js';
import { AttachError, attach, DEFAULT_WATCH_MS } from '../../attach/attach.js';
import { attachCandidates } from '../../attach/candidates.js';
import type { HandlerRegistry } from '../handler-registry.js';

/** Windows at once: each samples /proc on the main thread for seconds. */
const MAX_RUNNING = 2;

export function registerAttachHandlers(on: HandlerRegistry): void {
  let running = 0;
  on.on('attach:list', async () => ok(await attachCandidates()));
  on.on('attach:run', async (p) => {
    if (running >= MAX_RUNNING) {
      return err('EBUSY', `${MAX_RUNNING} attach windows are running already; wait for one`);
    }
    running += 1;
    try {
      return ok(await attach(p.pid, { watchMs: p.watchMs ?? DEFAULT_WATCH_MS }));
    } catch (e) {
      if (e instanceof AttachError) return err('EATTACH', e.message);
      throw e;
    } finally {
      running -= 1;
    }
  });
}
