import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DisposableStore, listen, toDisposable } from './lifecycle.js';

describe('DisposableStore', () => {
  it('releases everything it owns once, newest first', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => order.push('a')));
    store.add(toDisposable(() => order.push('b')));
    store.dispose();
    store.dispose();
    expect(order).toEqual(['b', 'a']);
    expect(store.isDisposed).toBe(true);
  });

  it('releases what is added after it was disposed at once (nothing leaks)', () => {
    const store = new DisposableStore();
    store.dispose();
    let released = false;
    store.add(toDisposable(() => (released = true)));
    expect(released).toBe(true);
  });

  it('releases every item even if one throws, then throws the first error', () => {
    const store = new DisposableStore();
    const released: number[] = [];
    store.add(toDisposable(() => released.push(1)));
    store.add(
      toDisposable(() => {
        throw new Error('first');
      }),
    );
    store.add(
      toDisposable(() => {
        throw new Error('second');
      }),
    );
    expect(() => store.dispose()).toThrow('second');
    expect(released).toEqual([1]);
  });

  it('release() frees one item early; forget() drops it without running it', () => {
    const store = new DisposableStore();
    let a = 0;
    let b = 0;
    const da = store.add(toDisposable(() => (a += 1)));
    const db = store.add(toDisposable(() => (b += 1)));
    store.release(da);
    store.forget(db);
    store.dispose();
    expect([a, b]).toEqual([1, 0]);
  });

  it('listen() removes its listener when released', () => {
    const emitter = new EventEmitter();
    const store = new DisposableStore();
    const seen: number[] = [];
    store.add(listen(emitter, 'x', (n: number) => seen.push(n)));
    emitter.emit('x', 1);
    store.dispose();
    emitter.emit('x', 2);
    expect(seen).toEqual([1]);
    expect(emitter.listenerCount('x')).toBe(0);
  });
});
