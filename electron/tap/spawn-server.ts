/**
 * How the tap starts the host's server: as asked, or on Linux under `setpriv --pdeathsig KILL`,
 * which sets the parent-death signal and execs the server (the same pid, argv, env and cwd): if
 * the tap is killed outright (SIGKILL, which it cannot forward), the server is killed too, as the
 * host's SIGKILL would have killed it without the tap.
 */

import { accessSync, closeSync, constants as fsConstants, openSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';

const SETPRIV = '/usr/bin/setpriv';

/** `command` run under setpriv's parent-death signal where that works: Linux, setpriv there,
 *  and the command found (else the spawn's own ENOENT says so, as without it). */
export function underDeathSignal(command: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux' || !canRun(SETPRIV) || !findCommand(command))
    return [command, args];
  return [SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args]];
}

function canRun(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether `command` names a program that can run (a path, or a name on PATH). */
function findCommand(command: string): boolean {
  if (command.includes('/')) return canRun(command);
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && canRun(join(dir, command)));
}

/**
 * The server closed its stdin: the tap stops reading the host's, and closes it, so the host's
 * next write fails (EPIPE) as it would have without the tap. libuv never closes fds 0-2 itself:
 * once the stream let go of fd 0 it is closed here, and /dev/null takes its number.
 */
export function closeHostStdin(stdin: Readable): void {
  if (stdin !== process.stdin) {
    stdin.destroy();
    return;
  }
  stdin.once('close', () => {
    try {
      closeSync(0);
      openSync('/dev/null', 'r');
    } catch {
      // not a descriptor we could close: the host's writes go unread, as before
    }
  });
  stdin.destroy();
}
