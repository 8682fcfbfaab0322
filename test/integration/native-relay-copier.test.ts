/**
 * The native relay's copier threads (electron/tap/native/copier.c: O -> the holds or the ring ->
 * the tap's copies socket) on their own wire, this test being host and tap
 * (test/integration/relay-wire.ts): what the ring costs in memory once it is idle (on kernels
 * with and without MADV_POPULATE_WRITE) and for a small message, that a burst's holds cost no
 * pages and are closed after it (the last one back to a small pipe: its size measured with
 * test/integration/pipe-probe.c), whether a copier sleeps once the tap is gone, and copies where
 * the system refuses the ring. Budgets are generous: each failure these catch is a multiple of them.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MiB, waitFor } from './helpers.js';
import { pipeCapacity, pipeProbe, removePipeProbe } from './pipe-probe.js';
import { type RelayRun, relayStarter } from './relay-wire.js';
import { NATIVE_RELAY, TAP_RELAYS } from './tap-relays.js';

const native = TAP_RELAYS.some((r) => r.name === 'native');
/** relay.h's RING_WARM: what of stdout's ring stays resident while it is empty. */
const RING_WARM = 4 * MiB;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** The pipes a process has open (its fds that are pipes). */
function pipesOf(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('pipe:')) n += 1;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** Voluntary context switches (wake-ups after a sleep) of each of the relay's threads but its
 *  main one: its copiers. */
function copierWakeups(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`)
    .filter((tid) => Number(tid) !== pid)
    .map((tid) => {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1]);
    });
}

/** A server that says each line it reads back on stdout and on stderr, and stays. */
const ECHO_BOTH = [
  process.execPath,
  '-e',
  "process.stdin.on('data', (d) => { process.stdout.write(d); process.stderr.write(d); }); setInterval(() => {}, 1e6);",
];

/** Bytes the tap has been given of one stream (copies, put together with their marks). */
const copied = (r: RelayRun, dir: 0 | 1): number =>
  r.pieces[dir].reduce((n, p) => n + (p.kind === 'bytes' ? p.mark.bytes : 0), 0);

const start = relayStarter();
afterAll(removePipeProbe);

describe.runIf(native)("the native relay's copiers", () => {
  it.each([
    ['', ['--no-holds']],
    [' without MADV_POPULATE_WRITE (a kernel before 5.14)', ['--no-holds', '--no-populate']],
  ])(
    "with the ring alone, a 32 MiB answer's ring pages go back to the system once the ring has been idle%s",
    async (_, relayArgs) => {
      // Where madvise refuses to populate, the copies make the pages resident themselves: they
      // must be given back all the same (they were kept for good, up to 128 MiB a stream).
      const size = 32 * MiB;
      const server = [
        process.execPath,
        '-e',
        `process.stdout.write(Buffer.alloc(${size}, 0x61)); setInterval(() => {}, 1e6);`,
      ];
      const r = start(server, { relayArgs });
      let got = 0;
      r.hostOut?.on('data', (d: Buffer) => {
        got += d.length;
      });
      r.hostErr?.resume();
      const pid = r.relay.pid as number;
      await waitFor(
        () => got === size && copied(r, 0) === size,
        30_000,
        'host and tap have it all',
      );
      const busy = rssMiB(pid);
      expect(busy, `the relay's RSS with the answer's copies through: ${busy} MiB`).toBeGreaterThan(
        size / MiB / 2,
      );
      // Given back after 5 s idle (RING_KEEP_NS), but what stdout's ring keeps warm.
      const bound = RING_WARM / MiB + 8;
      await waitFor(() => rssMiB(pid) < bound, 20_000, 'the ring given back', 250).catch(() => {});
      const idle = rssMiB(pid);
      expect(idle, `the relay's RSS idle: ${idle} MiB`).toBeLessThan(bound);
      expect(r.pieces[0].every((p) => p.kind === 'bytes')).toBe(true);
    },
    40_000,
  );

  it('a 32 MiB answer goes through the holds: no ring pages, and once it is sent the holds closed, the last one small again', async () => {
    // The holds keep references to the server's own pages (hold.c): the relay makes none for the
    // copies, and an idle stream keeps one small pipe, not the 16 a burst may open, nor a large one.
    const size = 32 * MiB;
    const server = [
      process.execPath,
      '-e',
      `process.stdin.once('data', () => process.stdout.write(Buffer.alloc(${size}, 0x61))); setInterval(() => {}, 1e6);`,
    ];
    const r = start(server);
    let got = 0;
    r.hostOut?.on('data', (d: Buffer) => {
      got += d.length;
    });
    r.hostErr?.resume();
    const pid = r.relay.pid as number;
    await new Promise((ok) => setTimeout(ok, 300));
    const idlePipes = pipesOf(pid);
    const idleRss = rssMiB(pid);
    const probe = pipeProbe() !== null;
    const idleCapacity = probe ? pipeCapacity(pid) : 0;
    r.hostIn?.write('go\n');
    let mostPipes = idlePipes;
    let mostRss = idleRss;
    await waitFor(
      () => {
        mostPipes = Math.max(mostPipes, pipesOf(pid));
        mostRss = Math.max(mostRss, rssMiB(pid));
        return got === size && copied(r, 0) === size;
      },
      30_000,
      'host and tap have it all',
      5,
    );
    expect(r.pieces[0].every((p) => p.kind === 'bytes')).toBe(true);
    expect(mostPipes, 'the holds opened for the burst').toBeGreaterThan(idlePipes);
    expect(mostPipes - idlePipes, 'at most HOLD_PIPES (24) of them').toBeLessThanOrEqual(24);
    expect(
      mostRss - idleRss,
      `the relay's RSS ${idleRss} MiB idle, at most ${mostRss}`,
    ).toBeLessThan(8);
    await waitFor(() => pipesOf(pid) === idlePipes, 5000, 'the holds closed', 50);
    if (probe) {
      // The one left back to a pipe's default size: the burst made it 1 MiB, 256 of the user's
      // pipe pages, which it kept for as long as the stream was idle.
      const small = () => pipeCapacity(pid) === idleCapacity;
      await waitFor(small, 5000, 'the last hold small again', 50).catch(() => {});
      expect(pipeCapacity(pid), "the relay's pipes' sizes, idle again").toBe(idleCapacity);
    }
    // And the copiers sleep: nothing is held, nothing waits to be sent.
    const before = copierWakeups(pid);
    await new Promise((ok) => setTimeout(ok, 1000));
    const woke = copierWakeups(pid).map((n, i) => n - (before[i] ?? 0));
    expect(woke, `the copiers' wake-ups over 1 s, idle again: ${woke.join(', ')}`).toHaveLength(2);
    for (const n of woke) expect(n).toBeLessThan(10);
  });

  it.each([
    ['the host reads at once', true],
    ['the host leaves unread', false],
  ])(
    'an answer %s: its copies go to the tap once the host has it, or after 250 ms at most',
    async (_, reads) => {
      // copier.c, deliver_due: copies wait until the host's socket is empty, so that the tap's
      // observer does not start work while the host still reads (HOLD_MAX_NS bounds the wait).
      const size = 200 * 1024;
      const server = [
        process.execPath,
        '-e',
        `process.stdin.once('data', () => process.stdout.write(Buffer.alloc(${size}, 0x61))); setInterval(() => {}, 1e6);`,
      ];
      const r = start(server);
      r.hostErr?.resume();
      if (reads) r.hostOut?.resume();
      else r.hostOut?.pause();
      const firstCopy = new Promise<number>((ok) =>
        r.copies[0].once('data', () => ok(performance.now())),
      );
      const asked = performance.now();
      r.hostIn?.write('go\n');
      const waited = (await firstCopy) - asked;
      if (reads) expect(waited, `the first copy came after ${waited} ms`).toBeLessThan(200);
      else {
        expect(waited, `the first copy came after ${waited} ms`).toBeGreaterThan(200);
        // HOLD_MAX_NS bounds it: the host's queue never empties here, and the copies go all the
        // same (generous: a loaded machine; a wait for the host to read would be forever).
        expect(waited, `the first copy came after ${waited} ms`).toBeLessThan(1500);
      }
    },
  );

  it('a small message after an idle spell makes no ring pages resident past what is kept', async () => {
    // Populate-ahead is as much as has come: a 9-byte copy needs at most a step of stderr's
    // (2 MiB), stdout's fits in what it keeps warm.
    const r = start(ECHO_BOTH);
    r.hostOut?.resume();
    r.hostErr?.resume();
    const pid = r.relay.pid as number;
    await new Promise((ok) => setTimeout(ok, 500));
    const idle = rssMiB(pid);
    r.hostIn?.write('{"id":1}\n');
    await waitFor(() => copied(r, 0) === 9 && copied(r, 1) === 9, 5000, 'both copies at the tap');
    await new Promise((ok) => setTimeout(ok, 200));
    const after = rssMiB(pid);
    expect(after - idle, `the relay's RSS ${idle} MiB idle, ${after} MiB after`).toBeLessThan(8);
  });

  it('a tap that is gone: the copiers sleep until there is something to drop', async () => {
    // With no one to take the copies, each copier looked at its pipe every 10 ms, for as long
    // as the relay ran (~100 wake-ups a second each).
    const r = start(ECHO_BOTH);
    let out = '';
    r.hostOut?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    r.hostErr?.resume();
    const pid = r.relay.pid as number;
    r.hostIn?.write('{"id":1}\n');
    await waitFor(() => copied(r, 0) === 9 && copied(r, 1) === 9, 5000, 'both copies at the tap');
    for (const c of r.copies) c.destroy();
    r.hostIn?.write('{"id":2}\n'); // its copies find the sockets closed
    await waitFor(() => out.includes('{"id":2}'), 5000, 'the second answer at the host');
    // Past RING_KEEP_NS (5 s): the rings given back, nothing held.
    await new Promise((ok) => setTimeout(ok, 6500));
    const before = copierWakeups(pid);
    await new Promise((ok) => setTimeout(ok, 2000));
    const woke = copierWakeups(pid).map((n, i) => n - (before[i] ?? 0));
    expect(woke, `the copiers' wake-ups over 2 s: ${woke.join(', ')}`).toHaveLength(2);
    for (const n of woke) expect(n).toBeLessThan(20);
    // And the relay goes on, uncopied.
    r.hostIn?.write('{"id":3}\n');
    await waitFor(() => out.includes('{"id":3}'), 5000, 'the third answer at the host');
  }, 30_000);

  it('a ring the system refuses (an address-space limit): the copies go to the tap without it', async () => {
    // The ring is a 128 MiB reservation: under `ulimit -v` (or strict overcommit) it is
    // refused. The copies stayed in O then, none reached the tap, and the relay waited its 5 s
    // for them at the end of each stream.
    const size = 4 * MiB;
    const r = start(
      [process.execPath, '-e', `process.stdout.write(Buffer.alloc(${size}, 0x62));`],
      { binary: '/bin/sh', relayArgs: ['-c', 'ulimit -v 120000 && exec "$0"', NATIVE_RELAY] },
    );
    let got = 0;
    let hostEnd = 0;
    r.hostOut?.on('data', (d: Buffer) => {
      got += d.length;
    });
    r.hostOut?.on('end', () => {
      hostEnd = Date.now();
    });
    r.hostErr?.resume();
    r.hostIn?.end();
    expect((await r.exited)[0]).toBe(0);
    const ended = Date.now() - hostEnd;
    expect(got).toBe(size);
    expect(ended, `the relay ended ${ended} ms after the host's EOF`).toBeLessThan(3000);
    let offset = 0;
    for (const p of r.pieces[0]) {
      expect(p.mark.offset).toBe(offset);
      if (p.kind === 'bytes') expect(Buffer.from(p.data).every((b) => b === 0x62)).toBe(true);
      offset += p.mark.bytes;
    }
    expect(offset).toBe(size);
    expect(copied(r, 0), 'copies at the tap').toBeGreaterThan(0);
    expect(r.records.find((x) => x.type === 'eof' && x.dir === 0)).toMatchObject({ total: size });
  });
});
