/**
 * Host configs: importing one's text (a file the user picked), finding the usual ones, and
 * tapping or untapping the servers of one found (`pipescope tap install` / `uninstall` from
 * the start screen).
 *
 * The tap channels rewrite a file, so they take only a path `config:discover` finds now
 * (discovery runs again per call): a page cannot make the app write anywhere else. Writes are
 * one at a time.
 */

import { err, ok, type Result } from '../../../../shared/result.js';
import type { TapConfigResult, TapResult } from '../../../../shared/tap-config.js';
import { type DiscoverOptions, discoverConfigs } from '../../config/discovery.js';
import { importConfigText } from '../../config/import.js';
import { TapConfigError, tapInstall, tapUninstall } from '../../config/tap-install.js';
import type { HandlerRegistry } from '../handler-registry.js';
import { type AppTapLauncher, appTapLauncher } from '../tap-launcher.js';

export interface ConfigHandlerOptions {
  /** Where discovery looks (default: this user's home, the cwd, the environment). */
  discover?: DiscoverOptions;
  /** What a tapped entry runs (default: appTapLauncher). */
  launcher?: () => Promise<AppTapLauncher>;
}

export function registerConfigHandlers(on: HandlerRegistry, o: ConfigHandlerOptions = {}): void {
  const launcher = o.launcher ?? (() => appTapLauncher());
  let writing: Promise<unknown> = Promise.resolve();
  /** Runs `fn` on a discovered config, after any write before it; TapConfigError → ETAPCONFIG. */
  const onDiscovered = (
    path: string,
    fn: () => Promise<TapConfigResult>,
  ): Promise<Result<TapConfigResult>> => {
    const run = writing.then(async (): Promise<Result<TapConfigResult>> => {
      const found = await discoverConfigs(o.discover);
      if (!found.some((d) => d.path === path)) {
        return err(
          'ENOTDISCOVERED',
          `${path} is not one of the host configs Pipescope found on this machine; only those can be tapped from the app (use \`pipescope tap install --config FILE\` for another)`,
        );
      }
      try {
        return ok(await fn());
      } catch (e) {
        if (e instanceof TapConfigError) return err('ETAPCONFIG', e.message);
        throw e;
      }
    });
    writing = run.catch(() => undefined);
    return run;
  };

  on.on('config:import', async (p) => {
    try {
      return ok(importConfigText(p.text, p.format, p.fileName));
    } catch (e) {
      return err('EIMPORT', e instanceof Error ? e.message : String(e));
    }
  });
  on.on('config:discover', async () => ok(await discoverConfigs(o.discover)));
  on.on('config:tap-install', (p) =>
    onDiscovered(p.path, async () => {
      const l = await launcher();
      const r = await tapInstall({
        config: p.path,
        servers: p.servers,
        launcher: { node: l.node, bin: l.bin, ...(l.front ? { front: l.front } : {}) },
        dryRun: p.dryRun,
      });
      return withLauncher(r, l);
    }),
  );
  on.on('config:tap-uninstall', (p) =>
    onDiscovered(p.path, async () =>
      withLauncher(await tapUninstall({ config: p.path, dryRun: p.dryRun }), null),
    ),
  );
}

function withLauncher(r: TapResult, l: AppTapLauncher | null): TapConfigResult {
  return {
    ...r,
    launcher: l
      ? { node: l.node, bin: l.bin, ...(l.front ? { front: l.front } : {}), note: l.note }
      : null,
  };
}
