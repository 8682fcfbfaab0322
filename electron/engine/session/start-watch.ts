/**
 * How a session's start ends: the worker spawned the server (resolves), the spawn failed, or the
 * worker died before it spawned anything (its entry missing from app.asar.unpacked, a crash as
 * it loads): both reject with a SessionError in words. Fed by: the transport's events, once
 * each. Listens: the Session, through `hooks` (its state) and the promise.
 */
import type { Transport } from '../transport/transport.js';
import { SessionError, spawnErrorMessage } from './types.js';

export interface StartHooks {
  spawned(pid: number): void;
  failed(e: { code: string; message: string }): void;
  /** After a failed spawn: release the worker and the timers (a failed start owns nothing). */
  release(): void;
  /** Whether the start is still undecided (a worker's death after it is the stop's business). */
  undecided(): boolean;
}

export function watchStart(
  transport: Transport,
  command: string,
  hooks: StartHooks,
): Promise<void> {
  return new Promise((resolve, reject) => {
    transport.once('spawned', (pid) => {
      hooks.spawned(pid);
      resolve();
    });
    const fail = (e: { code: string; message: string }): void => {
      hooks.failed(e);
      reject(new SessionError(e.code, spawnErrorMessage(command, e)));
    };
    transport.once('spawn-error', (e) => {
      fail(e);
      hooks.release();
    });
    transport.once('fatal', (message) => {
      if (hooks.undecided()) fail({ code: 'EWORKER', message });
    });
  });
}
