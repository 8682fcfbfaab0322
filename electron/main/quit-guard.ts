/**
 * Quitting stops every child through the stop ladder first (HARDENING.md 22). The guard owns the
 * quit state: the first `before-quit` is cancelled while `stopAll` runs (bounded by a safety
 * timeout on top of the ladder's own bounded waits), then the app quits for real and the next
 * `before-quit` passes. Pure, so the sequence is tested without Electron.
 */

export interface QuitGuardOptions {
  stopAll(): Promise<void>;
  /** Called once the sessions are stopped (main.ts: `app.quit()`). */
  quit(): void;
  /** Upper bound on waiting for stopAll; the ladder itself is bounded, this is belt and braces. */
  timeoutMs?: number;
  onError?(error: unknown): void;
}

export type QuitPhase = 'running' | 'stopping' | 'ready';

export interface QuitGuard {
  /** The `before-quit` listener. */
  onBeforeQuit(event: { preventDefault(): void }): void;
  readonly phase: QuitPhase;
  /** Resolves when the stop finished and quit() was called (tests, signal handlers). */
  readonly done: Promise<void>;
}

export function createQuitGuard(options: QuitGuardOptions): QuitGuard {
  const timeoutMs = options.timeoutMs ?? 20_000;
  let phase: QuitPhase = 'running';
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });

  async function stopThenQuit(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await Promise.race([options.stopAll(), timeout]);
    } catch (e) {
      options.onError?.(e);
    } finally {
      clearTimeout(timer);
    }
    phase = 'ready';
    options.quit();
    resolveDone();
  }

  return {
    onBeforeQuit(event) {
      if (phase === 'ready') return;
      event.preventDefault();
      if (phase === 'stopping') return;
      phase = 'stopping';
      void stopThenQuit();
    },
    get phase() {
      return phase;
    },
    done,
  };
}
