/**
 * The native relay (electron/tap/native/relay.c) on its own wire: this test is the host (fds
 * 0-2) and the tap (fds 6-8) at once, around a real server (test/integration/relay-wire.ts).
 * For what the tap itself cannot be made to do: be stuck, or send the relay odd commands; and
 * the relay as a user past its pipe pages (test/integration/pipe-probe.c uses them up).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { injectCommand, type Piece } from '../../dist/electron/tap/native-records.js';
import { MiB, waitFor } from './helpers.js';
import { pipeCapacity, pipeProbe, removePipeProbe } from './pipe-probe.js';
import { piecesText, type RelayRun, relayStarter } from './relay-wire.js';
import { NATIVE_RELAY, TAP_RELAYS } from './tap-relays.js';

const native = TAP_RELAYS.some((r) => r.name === 'native');
/** relay.h's CTRL_MAX: what the control queue may hold for a tap that does not read it. */
const CTRL_MAX = 16 * MiB;
/** relay.h's RING_MAX: the copies a stream may hold for a tap that does not take them. */
const RING_MAX = 128 * MiB;

/** A server that writes `bytes` of 16-byte records, each its own offset in hex and a newline
 *  (any byte out of place shows), built first and then written as fast as the pipe takes it,
 *  then exits. */
function offsetServer(bytes: number): string[] {
  return [
    process.execPath,
    '-e',
    `const b = Buffer.allocUnsafe(${bytes}), hex = Buffer.from('0123456789abcdef');
     for (let o = 0; o < b.length; o += 16) {
       for (let i = 14, v = o; i >= 0; i--, v = Math.floor(v / 16)) b[o + i] = hex[v % 16];
       b[o + 15] = 10;
     }
     process.stdout.write(b);`,
  ];
}

/** What offsetServer wrote at [offset, offset + n). */
function offsetText(offset: number, n: number): string {
  let s = '';
  for (let o = offset - (offset % 16); o < offset + n; o += 16)
    s += `${o.toString(16).padStart(15, '0')}\n`;
  const from = offset % 16;
  return s.slice(from, from + n);
}

/** Pieces in order with no hole; returns the observed ones' bytes, each checked at its offset. */
function checkPieces(pieces: Piece[]): { observed: number; gaps: number; total: number } {
  let offset = 0;
  let observed = 0;
  let gaps = 0;
  for (const p of pieces) {
    expect(p.mark.offset).toBe(offset);
    if (p.kind === 'bytes') {
      const text = Buffer.from(p.data).toString('latin1');
      if (text !== offsetText(offset, p.mark.bytes))
        expect.fail(`the copy at ${offset} (${p.mark.bytes} bytes) is not the server's bytes`);
      observed += p.mark.bytes;
    } else gaps += p.mark.bytes;
    offset += p.mark.bytes;
  }
  return { observed, gaps, total: offset };
}

/** The host's stdin ended, the relay's run to its end: the host got `size` bytes of the
 *  offset records, and the tap every copy, in order, with no gap. */
async function expectWholeAnswer(r: RelayRun, size: number): Promise<void> {
  const host = readHost(r);
  r.hostIn?.end();
  expect((await r.exited)[0]).toBe(0);
  expect(host.got()).toBe(size);
  expect(host.bad()).toBe(0);
  const { observed, gaps, total } = checkPieces(r.pieces[0]);
  expect([total, gaps, observed]).toEqual([size, 0, size]);
  expect(r.records.find((x) => x.type === 'eof' && x.dir === 0)).toMatchObject({ total: size });
}

/** The host's side: reads everything, counts it, checks it at its offsets in 1 MiB steps. */
function readHost(r: RelayRun): { got: () => number; bad: () => number } {
  let got = 0;
  let bad = 0;
  let pending = '';
  r.hostOut?.on('data', (d: Buffer) => {
    pending += d.toString('latin1');
    while (pending.length >= MiB) {
      if (pending.slice(0, MiB) !== offsetText(got, MiB)) bad += 1;
      got += MiB;
      pending = pending.slice(MiB);
    }
  });
  r.hostOut?.on('end', () => {
    if (pending !== offsetText(got, pending.length)) bad += 1;
    got += pending.length;
    pending = '';
  });
  r.hostErr?.resume();
  return { got: () => got, bad: () => bad };
}

function vmHwmMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

const start = relayStarter();
afterAll(removePipeProbe);

/** The kernel's pipe-user-pages-soft (pages; 0: no limit). */
function pipeUserPagesSoft(): number {
  return Number(readFileSync('/proc/sys/fs/pipe-user-pages-soft', 'utf8').trim());
}

/** setpriv's arguments that run what follows as nobody. */
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups', '--'];
/** Whether this test can run the relay as another user (it is root, that user may run the
 *  relay and the pipe probe): the pipe pages the system allows a user are root's to ignore. */
function nobodyRuns(argv: string[], status: number): boolean {
  return spawnSync('setpriv', [...NOBODY, ...argv], { stdio: 'ignore' }).status === status;
}
const asNobody =
  native &&
  process.getuid?.() === 0 &&
  pipeProbe() !== null &&
  nobodyRuns([NATIVE_RELAY, 'exec', String(process.pid), '--', 'true'], 0) &&
  nobodyRuns([pipeProbe() as string], 2); // its usage: it ran

/** The relay around `cat`, and what the host has read of it so far. */
function catRelay(): [RelayRun, () => string] {
  const r = start(['cat']);
  r.hostErr?.resume();
  let out = '';
  r.hostOut?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return [r, () => out];
}

describe.runIf(native)('the native relay, driven directly', () => {
  it('a tap that does not read its records: the relay holds at most its bound of them', async () => {
    // The host's 20 MiB of requests fill the queue with their copies (up to its bound); then
    // the server answers in 1-byte writes for 4 s: one mark each, still untaken.
    const server = [
      'perl',
      '-e',
      '$| = 1; while (sysread(STDIN, $b, 65536)) {} my $end = time + 4; while (time < $end) { syswrite(STDOUT, "x") for 1 .. 100 }',
    ];
    const r = start(server, { readCtrl: false });
    for (const c of r.copies) c.resume();
    r.hostErr?.resume();
    let got = 0;
    r.hostOut?.on('data', (d: Buffer) => {
      got += d.length;
    });
    const request = Buffer.alloc(MiB, 0x61);
    for (let i = 0; i < 20; i++)
      if (!r.hostIn?.write(request)) await new Promise((ok) => r.hostIn?.once('drain', ok));
    r.hostIn?.end();
    await new Promise((ok) => r.server.once('exit', ok));
    // The tap wakes up and takes everything the relay kept for it.
    r.ctrl.resume();
    expect((await r.exited)[0]).toBe(0);
    expect(r.ctrlBytes(), `${r.ctrlBytes()} bytes of records`).toBeLessThan(CTRL_MAX + MiB);
    // Nothing was lost on the way, and the copies still fit their marks.
    expect(got).toBeGreaterThan(0);
    const stdout = r.pieces[0];
    let offset = 0;
    for (const p of stdout) {
      expect(p.mark.offset).toBe(offset);
      offset += p.mark.bytes;
    }
    expect(offset).toBe(got);
    expect(piecesText(stdout).every((t) => t === null || /^x+$/.test(t))).toBe(true);
    const eof = r.records.find((x) => x.type === 'eof' && x.dir === 0);
    expect(eof).toMatchObject({ total: got });
  }, 60_000);

  it.each([
    ['', []],
    [', its copier kept behind (the relay copies the loads O has no room for)', ['--slow-copier']],
    [', one hold at most (the ring takes the rest, after it)', ['--hold-pipes', '1']],
    [', one hold at most and its copier kept behind', ['--hold-pipes', '1', '--slow-copier']],
    [', the ring alone (no holds)', ['--no-holds']],
  ])(
    'a 48 MiB answer: the host gets it whole, and so does the tap, every copy in order%s',
    async (_, relayArgs) => {
      // The copies are held while the host's path moves and handed over once it is still: none
      // may be lost or reordered on the way (O, the holds, the ring after them, the relay's own
      // thread when O is full).
      const size = 48 * MiB;
      await expectWholeAnswer(start(offsetServer(size), { relayArgs }), size);
    },
    60_000,
  );

  it('an answer in many small writes: every copy in order, whether the holds or the ring take them', async () => {
    // Each small write is a pipe buffer of its own: a hold full of them holds few bytes
    // (HOLD_MIN_FILL), and the ring takes the rest of the burst after it.
    const size = 2 * MiB;
    const server = [
      process.execPath,
      '-e',
      `const fs = require('node:fs'), hex = '0123456789abcdef';
       for (let o = 0; o < ${size}; o += 16) {
         let s = '';
         for (let i = 14, v = o; i >= 0; i--, v = Math.floor(v / 16)) s = hex[v % 16] + s;
         for (;;) { try { fs.writeSync(1, s + '\\n'); break; } catch (e) { if (e.code !== 'EAGAIN') throw e; } }
       }`,
    ];
    await expectWholeAnswer(start(server), size);
  }, 60_000);

  it.runIf(asNobody).each([
    [0, 'every pipe it makes is a small one, and none grows'],
    [4, 'its first hold grows, the next ones are refused'],
  ])(
    'a user past its pipe pages (%i MiB of them left): %s; the copies go to the ring, every one in order',
    async (spare) => {
      // An unprivileged user's pipes count against pipe-user-pages-soft (16,384 pages): past it,
      // its new pipes have 2 buffers and none may grow (F_SETPIPE_SZ: EPERM). Nobody's pages are
      // used up first (but `spare` 1 MiB pipes), then the relay runs as nobody.
      const probe = pipeProbe() as string;
      const filler = spawn('setpriv', [...NOBODY, probe, 'fill', String(spare)], {
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      const ended = new Promise((ok) => filler.once('exit', ok));
      try {
        const kept = await new Promise<number>((ok, no) => {
          filler.stdout.once('data', (d: Buffer) => ok(Number(d.toString())));
          filler.once('exit', () => no(new Error('the pipe filler ended')));
        });
        expect(kept, "nobody's 1 MiB pipes, held meanwhile").toBeGreaterThan(0);
        const size = 32 * MiB;
        const r = start(offsetServer(size), {
          binary: 'setpriv',
          relayArgs: [...NOBODY, NATIVE_RELAY],
        });
        await expectWholeAnswer(r, size);
      } finally {
        filler.stdin.end();
        await ended;
      }
    },
    60_000,
  );

  it.runIf(pipeProbe() !== null).each([
    ['a budget of 4 MiB (--hold-budget, as a relay not root is given)', 32, null],
    ['as nobody: a quarter of its pipe pages (16 MiB of the 64 MiB default)', 64, 'nobody'],
  ])(
    "the holds take at most their share of the user's pipe pages, %s; the ring the rest, in order",
    async (_, mib, who) => {
      // Past pipe-user-pages-soft every new pipe of the user's is a small one: a held burst
      // must leave the user's other programs theirs (hold.c hold_budget).
      if (who === 'nobody' && !asNobody) return;
      const size = (mib as number) * MiB;
      const budget = who === null ? 4 * MiB : (pipeUserPagesSoft() * 4096) / 4;
      const r =
        who === null
          ? start(offsetServer(size), { relayArgs: ['--hold-budget', String(budget)] })
          : start(offsetServer(size), { binary: 'setpriv', relayArgs: [...NOBODY, NATIVE_RELAY] });
      const pid = r.relay.pid as number;
      // Its pipes are made before it says it is ready.
      await waitFor(() => r.records.some((x) => x.type === 'ready'), 10_000, 'the relay ready');
      const idle = pipeCapacity(pid);
      // The tap takes no copies until the host has it all: whatever the holds took, they keep.
      for (const s of r.copies) s.pause();
      const host = readHost(r);
      r.hostIn?.end();
      await waitFor(() => host.got() === size, 30_000, 'the host has every byte');
      await new Promise((ok) => setTimeout(ok, 500));
      const most = pipeCapacity(pid);
      for (const s of r.copies) s.resume();
      expect((await r.exited)[0]).toBe(0);
      expect(host.bad()).toBe(0);
      const { observed, gaps, total } = checkPieces(r.pieces[0]);
      expect([total, gaps, observed]).toEqual([size, 0, size]);
      // Each hold is charged past a pipe's default size (64 KiB): at most 24 of those over.
      expect(
        most - idle,
        `the relay's pipes grew from ${idle} to ${most} bytes`,
      ).toBeLessThanOrEqual(budget + 24 * 64 * 1024);
      expect(most - idle, 'the holds were used').toBeGreaterThan(budget / 2);
    },
    60_000,
  );

  it('a tap that does not take its copies: the host still gets every byte, the relay holds at most its ring', async () => {
    // 192 MiB while the copies' socket is not read: the ring fills (its bound), then O, then
    // loads go uncopied. The host must not notice; the relay must not grow past the ring.
    const size = 192 * MiB;
    const r = start(offsetServer(size));
    for (const c of r.copies) c.pause();
    const host = readHost(r);
    r.hostIn?.end();
    await waitFor(() => host.got() === size, 50_000, 'the host has every byte');
    expect(host.bad()).toBe(0);
    const hwm = vmHwmMiB(r.relay.pid as number);
    expect(hwm, `the relay's peak RSS, ${hwm} MiB`).toBeLessThan(RING_MAX / MiB + 24);
    console.log(`relay peak RSS ${hwm.toFixed(1)} MiB`);
    // The tap wakes up and takes what was kept for it: what it has is the server's, in place.
    for (const c of r.copies) c.resume();
    expect((await r.exited)[0]).toBe(0);
    const { observed, gaps, total } = checkPieces(r.pieces[0]);
    expect(total).toBe(size);
    expect(gaps).toBeGreaterThan(0);
    expect(observed).toBeGreaterThan(64 * MiB);
    // The ring, and what O and the sockets on the way held.
    expect(observed).toBeLessThanOrEqual(RING_MAX + 8 * MiB);
  }, 90_000);

  it("a line of Pipescope's still waiting when the relay ends is said to have failed", async () => {
    // The host is inside a line (no newline yet): the line waits for its end, which never comes.
    const r = start(['sleep', '30']);
    r.hostOut?.resume();
    r.hostErr?.resume();
    r.hostIn?.write('{"id":1,');
    await waitFor(() => r.records.some((x) => x.type === 'stdin'), 5000, 'the host line read');
    r.ctrl.write(injectCommand(9, Buffer.from('{"cancel":1}\n')));
    await new Promise((ok) => setTimeout(ok, 300));
    r.server.kill('SIGTERM'); // its output ends: the relay ends with the line still waiting
    expect((await r.exited)[0]).toBe(0);
    const done = r.records.find((x) => x.type === 'inject-done' && x.seq === 9);
    expect(done, 'an inject-done for the waiting line').toBeDefined();
    expect(done).toMatchObject({ error: expect.any(String) });
  });

  it("a line of Pipescope's over 1 MiB is refused whole; the relay and the host's lines go on", async () => {
    const [r, out] = catRelay();
    r.ctrl.write(injectCommand(5, Buffer.alloc(3 * MiB, 0x61)));
    r.ctrl.write(injectCommand(6, Buffer.from('{"small":1}\n')));
    await waitFor(
      () => r.records.some((x) => x.type === 'inject-done' && x.seq === 6),
      10_000,
      'the small line done',
    );
    expect(r.records.find((x) => x.type === 'inject-done' && x.seq === 5)).toMatchObject({
      error: expect.stringMatching(/over 1 MiB/),
    });
    expect(r.records.find((x) => x.type === 'inject-done' && x.seq === 6)).toMatchObject({
      error: null,
    });
    r.hostIn?.write('{"id":1}\n');
    await waitFor(() => out() === '{"small":1}\n{"id":1}\n', 5000, "the host's line through");
    r.hostIn?.end();
    expect((await r.exited)[0]).toBe(0);
  });

  it("a refused line in odd cuts (header, sequence number, body), the next commands in its tail's write", async () => {
    // Its 8-byte header, then its sequence number, arrive a few bytes at a time: the relay waits
    // for both before it answers, then drops the body across reads, and parses what follows it
    // in the same read.
    const r = start(['cat']);
    r.hostErr?.resume();
    let out = '';
    r.hostOut?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const big = Buffer.from(injectCommand(5, Buffer.alloc(2 * MiB + 3, 0x61)));
    const small = [6, 7].map((seq) =>
      Buffer.from(injectCommand(seq, Buffer.from(`{"small":${seq}}\n`))),
    ) as [Buffer, Buffer];
    let at = 0;
    for (const cut of [3, 8, 11, 16, 17, MiB, big.length - 5]) {
      r.ctrl.write(big.subarray(at, cut));
      at = cut;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    r.ctrl.write(Buffer.concat([big.subarray(at), small[0], small[1].subarray(0, 5)]));
    await new Promise((ok) => setTimeout(ok, 50));
    r.ctrl.write(small[1].subarray(5));
    await waitFor(() => out === '{"small":6}\n{"small":7}\n', 10_000, 'the next two lines');
    const done = r.records.flatMap((x) =>
      x.type === 'inject-done' ? [[x.seq, x.error === null]] : [],
    );
    expect(done).toEqual([
      [5, false],
      [6, true],
      [7, true],
    ]);
    r.hostIn?.end();
    expect((await r.exited)[0]).toBe(0);
  });

  it("an empty line of Pipescope's is done at once, and the host's lines go on", async () => {
    const [r, out] = catRelay();
    r.ctrl.write(injectCommand(7, new Uint8Array(0)));
    await waitFor(
      () => r.records.some((x) => x.type === 'inject-done' && x.seq === 7),
      5000,
      'the empty line done',
    );
    expect(r.records.find((x) => x.type === 'inject-done')).toMatchObject({ seq: 7, error: null });
    r.hostIn?.write('{"id":1}\n');
    await waitFor(() => out() === '{"id":1}\n', 5000, "the host's line through");
    r.hostIn?.end();
    expect((await r.exited)[0]).toBe(0);
  });
});
