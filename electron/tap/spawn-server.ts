/**
 * How the tap starts the host's server: as asked, or on Linux under a parent-death signal, so
 * that a tap killed outright (SIGKILL, which it cannot forward) takes its server with it, as the
 * host's SIGKILL would have without the tap. Through `pipescope-relay exec <tap pid> -- …`
 * (native/relay.c: it checks the tap is still its parent once the signal is set, then execs the
 * server: the same pid, argv, env and cwd); where that binary cannot run, `setpriv --pdeathsig
 * KILL` (which does not check: a tap killed in the first milliseconds can leave an orphan).
 */

import {
  accessSync,
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  statSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { RELAY_BINARY, relayBinaryUnavailable } from '../native-binary.js';

const SETPRIV = '/usr/bin/setpriv';

/** The server's stdout socket's size where the host's stdout is a socket (a pipe is the host's
 *  to size) and the native relay starts the server: the rest of the system's default goes to
 *  the host's socket instead (relay.c, host_buffer_grow), so the host reads on while the relay
 *  waits for a CPU, and the server blocks where it did when the host stops reading. A 64 MiB
 *  answer, 11 interleaved runs, ×direct (settled / at spawn): the default 1.27 / 1.25, 128 KiB
 *  1.10 / 1.26, 64 KiB 0.97 / 1.56 (the server's side then too small while the tap loads). */
export const SERVER_SNDBUF = 128 * 1024;

/** Whether this process's stdout, which the native relay gets, is a socket. */
export function hostStdoutIsSocket(): boolean {
  try {
    return fstatSync(1).isSocket();
  } catch {
    return false;
  }
}

/** `command` run under a parent-death signal where that works: Linux, and the command found
 *  (else the spawn's own ENOENT says so, as without it). Whichever relay moves the bytes.
 *  `stdoutSndbuf`: the server's stdout socket made that size, where the native relay starts it
 *  (relay.c, host_buffer_grow; native-relay.ts). */
export function underDeathSignal(
  command: string,
  args: string[],
  stdoutSndbuf?: number,
): [string, string[]] {
  if (process.platform !== 'linux' || !findCommand(command)) return [command, args];
  if (relayBinaryUnavailable() === null) {
    const buf = stdoutSndbuf ? ['--stdout-sndbuf', String(stdoutSndbuf)] : [];
    return [RELAY_BINARY, ['exec', String(process.pid), ...buf, '--', command, ...args]];
  }
  if (!canRun(SETPRIV)) return [command, args];
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
