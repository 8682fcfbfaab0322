import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdinWriter } from './stdin-writer.js';

function writer(t = { now: 0 }) {
  const done: [number, number, string | undefined][] = [];
  const w = new StdinWriter(
    () => t.now,
    (seq, waited, error) => done.push([seq, waited, error]),
  );
  return { w, done, t };
}

describe('StdinWriter', () => {
  it('fails fast before a stdin is attached and after the server closed it', async () => {
    const { w, done } = writer();
    w.write(1, Buffer.from('x\n'));
    expect(done).toEqual([[1, 0, 'server closed stdin']]);
    const stdin = new PassThrough();
    w.attach(stdin);
    stdin.emit('error', Object.assign(new Error('EPIPE'), { code: 'EPIPE' }));
    expect(w.closed).toBe(true);
    w.write(2, Buffer.from('y\n'));
    expect(done.at(-1)).toEqual([2, 0, 'server closed stdin']);
  });

  it('counts bytes written and the time a full pipe made a write wait for drain', async () => {
    const t = { now: 0 };
    const { w, done } = writer(t);
    let release: (() => void) | null = null;
    const stdin = new Writable({
      highWaterMark: 4,
      write(_chunk, _enc, cb) {
        release = cb;
      },
    });
    w.attach(stdin);
    w.write(1, Buffer.from('0123456789\n'));
    expect(w.pendingSince).toBe(0);
    expect(w.pendingBytes()).toBe(11);
    t.now = 250;
    expect(w.waitMs()).toBe(250);
    (release as unknown as () => void)();
    await new Promise((r) => setImmediate(r));
    expect(done).toEqual([[1, 250, undefined]]);
    expect(w.bytes).toBe(11);
    expect(w.pendingSince).toBeNull();
    t.now = 900;
    expect(w.waitMs()).toBe(250);
  });
});
