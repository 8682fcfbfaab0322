/**
 * `pipescope web`: browser mode as a command. Creates the SessionManager, starts the server on
 * the built renderer, prints exactly one line on stdout when ready (scripts and tests read it),
 * opens a browser unless told not to, and on SIGINT/SIGTERM stops every session through the
 * stop ladder and resolves with exit status 0. Everything else it says goes to stderr.
 * Fed by: electron/cli/main.ts. Owns: the manager, the server and the signal handlers it adds.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SessionManager } from '../engine/host/session-manager.js';
import { addSecret } from '../engine/trace/redact.js';
import { builtPaths } from '../paths.js';
import { isLoopbackBind } from './auth.js';
import { openBrowser } from './open-browser.js';
import { startWebServer } from './server.js';

export interface WebCommandOptions {
  port: number;
  open: boolean;
  host?: string;
  allowRemote?: boolean;
  /** A trace to open before the page loads (`pipescope open <file>`). */
  openTrace?: string;
}

/** Past this, a shutdown that left a handle open ends the process anyway. */
const EXIT_FALLBACK_MS = 3000;

function say(line: string): void {
  process.stderr.write(`pipescope: ${line}\n`);
}

export async function runWebCommand(opts: WebCommandOptions): Promise<number> {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65_535) {
    say(`--port must be 0-65535 (got ${opts.port})`);
    return 2;
  }
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackBind(host) && !opts.allowRemote) {
    say(`--host ${host} is not loopback; add --allow-remote if you really mean it`);
    return 2;
  }
  const staticDir = builtPaths.renderer();
  if (!existsSync(path.join(staticDir, 'index.html'))) {
    say(`the renderer is not built (${staticDir} is missing); run \`npm run build\``);
    return 2;
  }

  const manager = new SessionManager();
  // Sessions `pipescope tap` publishes show up here too (a second Pipescope leaves them be).
  const taps = await manager.startTaps();
  if (taps) say(`taps: ${taps}`);
  if (opts.openTrace) {
    const opened = await manager.handle('trace:open', { path: opts.openTrace });
    if (!opened.ok) {
      await manager.stopAll();
      say(opened.error.message);
      return 2;
    }
  }
  let server: Awaited<ReturnType<typeof startWebServer>>;
  try {
    server = await startWebServer({
      port: opts.port,
      host,
      allowNonLoopback: opts.allowRemote === true,
      staticDir,
      manager,
    });
  } catch (e) {
    await manager.stopAll();
    say(`cannot start browser mode: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }

  // The token must never reach a trace or an export (HARDENING.md 33).
  addSecret(server.token);
  // Signal handlers first, then the URL line: whoever reads the line may stop us at once.
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        say(`${signal} again: exiting without waiting for the stop ladder`);
        process.exit(1);
      }
      stopping = true;
      say(`${signal}: stopping every session`);
      server.close().then(
        () => resolve(0),
        (e: unknown) => {
          say(`shutdown: ${e instanceof Error ? e.message : String(e)}`);
          resolve(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal); // the terminal closed: stop, as for Ctrl-C
  });
  process.stdout.write(`Pipescope browser mode: ${server.url}\n`);
  const launch = opts.open ? openBrowser(server.url) : null;
  if (launch && !launch.opened) say('no browser to open here; open the URL above yourself');
  const code = await stopped;
  launch?.cleanup();
  // Everything we own is closed; if a stray handle keeps the loop alive, do not hang forever.
  setTimeout(() => process.exit(code), EXIT_FALLBACK_MS).unref();
  return code;
}
