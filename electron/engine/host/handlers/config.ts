/** Host configs: importing one's text (a file the user picked) and finding the usual ones. */
import { err, ok } from '../../../../shared/result.js';
import { discoverConfigs } from '../../config/discovery.js';
import { importConfigText } from '../../config/import.js';
import type { HandlerRegistry } from '../handler-registry.js';

export function registerConfigHandlers(on: HandlerRegistry): void {
  on.on('config:import', async (p) => {
    try {
      return ok(importConfigText(p.text, p.format, p.fileName));
    } catch (e) {
      return err('EIMPORT', e instanceof Error ? e.message : String(e));
    }
  });
  on.on('config:discover', async () => ok(await discoverConfigs()));
}
