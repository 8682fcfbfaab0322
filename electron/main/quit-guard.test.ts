import { describe, expect, it, vi } from 'vitest';
import { createQuitGuard } from './quit-guard.js';

function quitEvent() {
  return { preventDefault: vi.fn() };
}

describe('createQuitGuard', () => {
  it('holds the first quit until every session stopped, then quits once', async () => {
    const order: string[] = [];
    let release: () => void = () => {};
    const stopAll = vi.fn(
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            order.push('stopped');
            resolve();
          };
        }),
    );
    const quit = vi.fn(() => order.push('quit'));
    const guard = createQuitGuard({ stopAll, quit });

    const first = quitEvent();
    guard.onBeforeQuit(first);
    expect(first.preventDefault).toHaveBeenCalledOnce();
    expect(guard.phase).toBe('stopping');

    const again = quitEvent();
    guard.onBeforeQuit(again); // e.g. Cmd+Q twice: still waiting, still prevented, no second stop
    expect(again.preventDefault).toHaveBeenCalledOnce();
    expect(stopAll).toHaveBeenCalledOnce();
    expect(quit).not.toHaveBeenCalled();

    release();
    await guard.done;
    expect(order).toEqual(['stopped', 'quit']);
    expect(guard.phase).toBe('ready');

    const final = quitEvent();
    guard.onBeforeQuit(final); // the real quit passes
    expect(final.preventDefault).not.toHaveBeenCalled();
    expect(quit).toHaveBeenCalledOnce();
  });

  it('still quits when stopAll rejects, and reports it', async () => {
    const onError = vi.fn();
    const quit = vi.fn();
    const guard = createQuitGuard({ stopAll: () => Promise.reject(new Error('x')), quit, onError });
    guard.onBeforeQuit(quitEvent());
    await guard.done;
    expect(onError).toHaveBeenCalledOnce();
    expect(quit).toHaveBeenCalledOnce();
  });

  it('does not wait forever for a stop that hangs', async () => {
    vi.useFakeTimers();
    try {
      const quit = vi.fn();
      const guard = createQuitGuard({
        stopAll: () => new Promise(() => {}),
        quit,
        timeoutMs: 5000,
      });
      guard.onBeforeQuit(quitEvent());
      await vi.advanceTimersByTimeAsync(4999);
      expect(quit).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(quit).toHaveBeenCalledOnce();
    } finally {
      vi.useRealTimers();
    }
  });
});
