/**
 * Tap link: how a running `pipescope tap` reaches a running Pipescope (the Electron app or browser
 * mode) to show its session live. The app listens on a Unix socket in a folder only the user can
 * enter (0700) and writes a random token beside it (0600); a tap connects, presents the token,
 * and from then on both sides send JSON lines:
 *
 *   tap → app  {"type":"hello","token":…,"version":1,"tap":TapInfo}
 *   tap → app  {"type":"event","event":HostEvent}            (its own SessionManager's events)
 *   app → tap  {"type":"call","id":n,"channel":…,"payload":…}
 *   tap → app  {"type":"result","id":n,"result":Result}
 *
 * Without an app nothing listens and the tap tries again now and then; it works the same.
 * Windows has no such socket here: publishing is not available there (the tap still relays).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import type { HostEvent } from '../../../shared/host-api.js';
import type { Result } from '../../../shared/result.js';
import type { TapInfo } from '../../../shared/session-info.js';

export const TAP_LINK_VERSION = 1;
/** A line longer than this ends the connection (a full snapshot is far smaller). */
export const TAP_LINE_MAX_BYTES = 64 * 1024 * 1024;

export type TapToApp =
  | { type: 'hello'; token: string; version: number; tap: TapInfo }
  | { type: 'event'; event: HostEvent }
  | { type: 'result'; id: number; result: Result<unknown> };

export type AppToTap = { type: 'call'; id: number; channel: string; payload: unknown };

/** `PIPESCOPE_TAP_DIR`, else `$XDG_RUNTIME_DIR/pipescope`, else `~/.pipescope/run`. */
export function tapLinkDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PIPESCOPE_TAP_DIR) return env.PIPESCOPE_TAP_DIR;
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'pipescope');
  return path.join(homedir(), '.pipescope', 'run');
}

export function tapLinkPaths(dir = tapLinkDir()): { socket: string; token: string } {
  return { socket: path.join(dir, 'taps.sock'), token: path.join(dir, 'taps.token') };
}

/** Why a tap cannot publish on this platform (null: it can). */
export function tapLinkUnavailable(): string | null {
  return process.platform === 'win32'
    ? 'publishing to the app is not available on Windows yet (the tap still relays and records)'
    : null;
}

/** Why `path` is not private to this user (a symlink, someone else's, open to others), or
 *  null when it is. */
export function notPrivate(path: string, kind: 'folder' | 'file'): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch (e) {
    return `${path}: ${(e as Error).message}`;
  }
  if (st.isSymbolicLink()) return `${path} is a symbolic link`;
  if (kind === 'folder' ? !st.isDirectory() : !st.isFile()) return `${path} is not a ${kind}`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `${path} belongs to uid ${st.uid}, not ${uid}`;
  if ((st.mode & 0o077) !== 0)
    return `${path} is open to others (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/** The folder, made if missing, checked to be this user's own (not a link), and set to 0700. */
export function makePrivateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (st.isSymbolicLink() || !st.isDirectory() || (uid !== undefined && st.uid !== uid))
    throw new Error(`${dir} is not a folder of this user's`);
  chmodSync(dir, 0o700);
}

/** The app's side: the folder made (or checked) private, then a fresh token in it, readable
 *  by the user only (written beside it and renamed: never through a link someone left). */
export function writeTapToken(dir = tapLinkDir()): string {
  makePrivateFolder(dir);
  const token = randomBytes(32).toString('hex');
  const file = tapLinkPaths(dir).token;
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, token, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
  return token;
}

/** The tap's side: the token, or null when no app wrote one, or the folder or the file is
 *  not private to this user (then nothing is sent to whoever listens there). */
export function readTapToken(dir = tapLinkDir()): string | null {
  const file = tapLinkPaths(dir).token;
  if (notPrivate(dir, 'folder') !== null || notPrivate(file, 'file') !== null) return null;
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length >= 32 && timingSafeEqual(x, y);
}

/** Reads JSON lines from `socket`; a line past the bound or not JSON ends the connection. */
export function readLines(
  socket: Socket,
  onMessage: (msg: unknown) => void,
  maxBytes: () => number = () => TAP_LINE_MAX_BYTES,
): void {
  let pieces: Buffer[] = [];
  let pending = 0;
  socket.on('data', (chunk: Buffer) => {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl;
      pending += end - from;
      if (pending > maxBytes()) {
        socket.destroy();
        return;
      }
      pieces.push(chunk.subarray(from, end));
      if (nl === -1) return;
      const line = Buffer.concat(pieces).toString('utf8');
      pieces = [];
      pending = 0;
      from = nl + 1;
      try {
        onMessage(JSON.parse(line));
      } catch {
        // Not JSON, or a message its reader refused: the connection ends, nothing else.
        socket.destroy();
        return;
      }
      if (socket.destroyed) return;
    }
  });
}

/** Writes one message as a line; false when the socket is backed up past `maxBacklog`. */
export function writeLine(socket: Socket, msg: TapToApp | AppToTap, maxBacklog: number): boolean {
  if (socket.destroyed || socket.writableLength > maxBacklog) return false;
  socket.write(`${JSON.stringify(msg)}\n`);
  return true;
}
