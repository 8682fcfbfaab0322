/**
 * The native relay (electron/tap/native/relay.c) on its own wire: this test is the host (fds
 * 0-2) and the tap (fds 6-8) at once, around a real server (test/integration/relay-wire.ts).
 * For what the tap itself cannot be made to do: be stuck, or send the relay odd commands.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { injectCommand } from '../../dist/electron/tap/native-records.js';
import { MiB, waitFor } from './helpers.js';
import { piecesText, type RelayRun, startRelay, stopRelay } from './relay-wire.js';
import { TAP_RELAYS } from './tap-relays.js';

const native = TAP_RELAYS.some((r) => r.name === 'native');
/** relay.c's CTRL_MAX: what the control queue may hold for a tap that does not read it. */
const CTRL_MAX = 16 * MiB;

const runs: RelayRun[] = [];
afterEach(() => {
  for (const r of runs.splice(0)) stopRelay(r);
});

const start = (...a: Parameters<typeof startRelay>): RelayRun => {
  const r = startRelay(...a);
  runs.push(r);
  return r;
};

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
