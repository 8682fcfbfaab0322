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
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** The app's side: a fresh token, readable by the user only, in a folder only they can enter. */
export function writeTapToken(dir = tapLinkDir()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const token = randomBytes(32).toString('hex');
  const file = tapLinkPaths(dir).token;
  writeFileSync(file, token, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/** The tap's side: the token, or null when no app wrote one (or it cannot be read). */
export function readTapToken(dir = tapLinkDir()): string | null {
  try {
    return readFileSync(tapLinkPaths(dir).token, 'utf8').trim() || null;
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
export function readLines(socket: Socket, onMessage: (msg: unknown) => void): void {
  let pieces: Buffer[] = [];
  let pending = 0;
  socket.on('data', (chunk: Buffer) => {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl;
      pending += end - from;
      if (pending > TAP_LINE_MAX_BYTES) {
        socket.destroy();
        return;
      }
      pieces.push(chunk.subarray(from, end));
      if (nl === -1) return;
      const line = Buffer.concat(pieces).toString('utf8');
      pieces = [];
      pending = 0;
      from = nl + 1;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        socket.destroy();
        return;
      }
      onMessage(msg);
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
