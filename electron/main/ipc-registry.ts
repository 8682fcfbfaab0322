/**
 * IPC registration for the Electron host (HARDENING.md 30), written against structural types so
 * it runs in plain Node tests. One invoke channel carries every HostApi call: the handler checks
 * the sender (our window's web contents, its main frame, our app:// origin), validates the payload
 * against the channel's zod schema, then calls the SessionManager. Every answer is a Result; the
 * handler never throws (a throw through `ipcMain.handle` would reach the renderer as a bare
 * message). Events flow the other way on one channel, from `manager.subscribe`.
 */

import { IPC_CHANNELS } from '../../shared/bridge-protocol.js';
import type { AppMenuEvent, HostEvent } from '../../shared/host-api.js';
import { type HostCall, parseHostCall } from '../../shared/host-api.js';
import { err, type Result } from '../../shared/result.js';
import { isAppUrl } from './navigation.js';

/** Renderer → main: `invoke(channel, payload)`; main → renderer: HostEvents and menu events. */
const { invoke: INVOKE_CHANNEL, event: EVENT_CHANNEL } = IPC_CHANNELS;

/** The part of Electron's WebFrameMain the sender check reads. */
export interface FrameLike {
  readonly url: string;
  readonly parent: FrameLike | null;
}

/** The part of Electron's IpcMainInvokeEvent the handler reads. */
export interface InvokeEventLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: FrameLike | null;
}

export interface IpcMainLike {
  handle(
    channel: string,
    listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<Result<unknown>>,
  ): void;
  removeHandler(channel: string): void;
}

export interface ManagerLike {
  /** Runs a call whose payload was validated here (SessionManager.dispatch). */
  dispatch(call: HostCall): Promise<Result<unknown>>;
}

export interface EventSourceLike {
  subscribe(listener: (event: HostEvent) => void): () => void;
}

export interface EventTargetLike {
  isDestroyed(): boolean;
  send(channel: string, event: HostEvent): void;
}

/**
 * Why a sender is refused, or null when it is our window's main frame showing our UI.
 * `expectedSenderId` is the id of our window's web contents (null: no window, refuse all).
 */
export function senderProblem(
  event: InvokeEventLike,
  expectedSenderId: number | null,
): string | null {
  if (expectedSenderId === null) return 'no app window';
  if (event.sender?.id !== expectedSenderId) return 'not the app window';
  const frame = event.senderFrame;
  if (!frame) return 'sender frame is gone (navigated or destroyed)';
  if (frame.parent !== null) return 'not the main frame';
  if (!isAppUrl(frame.url)) return 'sender frame is not the app origin';
  return null;
}

/** The invoke handler: sender check, then the call's one validation, then dispatch. */
export function createInvokeHandler(
  manager: ManagerLike,
  expectedSenderId: () => number | null,
): (event: InvokeEventLike, ...args: unknown[]) => Promise<Result<unknown>> {
  return async (event, channel, payload) => {
    try {
      const problem = senderProblem(event, expectedSenderId());
      if (problem) return err('EFORBIDDEN', `IPC refused: ${problem}`);
      const call = parseHostCall(channel, payload);
      if (!call.ok) return call;
      return await manager.dispatch(call.value);
    } catch (e) {
      return err('EINTERNAL', e instanceof Error ? e.message : String(e));
    }
  };
}

/** Registers the one invoke handler; returns the function that removes it. */
export function registerInvokeHandler(
  ipcMain: IpcMainLike,
  manager: ManagerLike,
  expectedSenderId: () => number | null,
): () => void {
  ipcMain.handle(INVOKE_CHANNEL, createInvokeHandler(manager, expectedSenderId));
  return () => ipcMain.removeHandler(INVOKE_CHANNEL);
}

/** Pushes every HostEvent to the window until the returned unsubscribe runs (window closed). */
export function forwardHostEvents(source: EventSourceLike, target: EventTargetLike): () => void {
  return source.subscribe((event) => {
    if (target.isDestroyed()) return;
    target.send(EVENT_CHANNEL, event);
  });
}

/** Sends a menu event to the window if it is still there. */
export function sendMenuEvent(target: EventTargetLike | null, event: AppMenuEvent): boolean {
  if (!target || target.isDestroyed()) return false;
  target.send(EVENT_CHANNEL, event);
  return true;
}
