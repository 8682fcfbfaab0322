/**
 * Owners and what they own: every timer, listener, port, child and handle a stateful object
 * takes is added to its DisposableStore when it is taken, and released with the owner in one
 * `dispose()`, instead of being released by hand in a stop method where a new resource is easy
 * to forget (the idea of VS Code's base/common/lifecycle.ts, in a few lines). Pure TypeScript
 * (no DOM, no Node): both sides use it.
 */

export interface Disposable {
  dispose(): void;
}

/** A Disposable that runs `fn` once. */
export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** What `on`/`off` emitters offer (Node's EventEmitter, a MessagePort, a socket, a stream). */
interface Listenable<L> {
  on(event: string, listener: L): unknown;
  off(event: string, listener: L): unknown;
}

/** Adds `listener` to `source` and returns what removes it. */
export function listen<L>(source: Listenable<L>, event: string, listener: L): Disposable {
  source.on(event, listener);
  return toDisposable(() => {
    source.off(event, listener);
  });
}

export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Takes ownership of `d`; a store already disposed disposes it at once (nothing leaks). */
  add<T extends Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.items.add(d);
    return d;
  }

  /** Releases `d` now and forgets it (a resource that ends before its owner does). */
  release(d: Disposable): void {
    if (this.items.delete(d)) d.dispose();
  }

  /** Forgets `d` without releasing it (it was released some other way). */
  forget(d: Disposable): void {
    this.items.delete(d);
  }

  /**
   * Releases everything, newest first (a resource taken later may rest on one taken earlier).
   * Every item is released even if some throw; the first error is thrown afterwards.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all = [...this.items].reverse();
    this.items.clear();
    let failure: unknown = null;
    for (const d of all) {
      try {
        d.dispose();
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== null) throw failure;
  }
}
