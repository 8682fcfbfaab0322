/**
 * The native relay's loop (relay.c) under traffic that starts and stops on every side at once:
 * a source that had nothing is not tried again until poll says it has (src_idle, in_idle), a
 * loop that keeps moving looks at the other fds every SPIN_NS, and a held burst skips the
 * copies' pipe while the relay's thread put nothing in it (o_filled). A wake-up lost there is a
 * line that waits for ever, or a copy out of order: this test is the host and the tap around real
 * servers (test/integration/relay-wire.ts) and checks every byte, both ways, and how long each
 * line of the host's waited.
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  abandonCommand,
  injectCommand,
  type Piece,
} from '../../dist/electron/tap/native-records.js';
import { waitFor, withTimeout } from './helpers.js';
import { relayStarter } from './relay-wire.js';
import { NATIVE_RELAY, TAP_RELAYS } from './tap-relays.js';

const native = TAP_RELAYS.some((r) => r.name === 'native');
const start = relayStarter();
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** A seeded generator (mulberry32); its source is the server's too (RND). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const RND = rng.toString();

/** What offsetServer-like output holds at [offset, offset + n): 16-byte records, each its own
 *  offset in hex and a newline. */
function offsetText(offset: number, n: number): string {
  let s = '';
  for (let o = offset - (offset % 16); o < offset + n; o += 16)
    s += `${o.toString(16).padStart(15, '0')}\n`;
  return s.slice(offset % 16, (offset % 16) + n);
}

/** A server that does everything at random times, from `seed`: stdout in bursts of offset
 *  records (now and then a few MiB: a held burst), stderr lines `e<n>`, and each line it reads
 *  said back on stderr as `in <id> <length of its x's>` (`bad` if the line was cut into); it
 *  stops reading its stdin for a while now and then. At the end of its stdin, `end <bytes>`. */
function chaosServer(seed: number): string[] {
  return [
    process.execPath,
    '-e',
    `const rnd = (${RND})(${seed}), hex = Buffer.from('0123456789abcdef');
     let off = 0, e = 0, ended = false, pending = '';
     const records = (n) => {
       const b = Buffer.allocUnsafe(n);
       for (let o = 0; o < n; o += 16) {
         for (let i = 14, v = off + o; i >= 0; i--, v = Math.floor(v / 16)) b[o + i] = hex[v % 16];
         b[o + 15] = 10;
       }
       off += n;
       return b;
     };
     const burst = () => {
       if (ended) return process.stderr.write('end ' + off + '\\n');
       const n = 16 * Math.ceil((rnd() < 0.08 ? 262144 : 4096) * rnd());
       process.stdout.write(records(n), () => setTimeout(burst, rnd() * 20));
     };
     const errLine = () => {
       if (ended) return;
       process.stderr.write('e' + e++ + '\\n');
       setTimeout(errLine, rnd() * 15);
     };
     process.stdin.setEncoding('latin1');
     process.stdin.on('data', (d) => {
       pending += d;
       for (let nl; (nl = pending.indexOf('\\n')) >= 0; pending = pending.slice(nl + 1)) {
         const [id, body] = pending.slice(0, nl).split(' ');
         process.stderr.write('in ' + id + ' ' + (/^x*$/.test(body) ? body.length : 'bad') + '\\n');
       }
       if (rnd() < 0.2) {
         process.stdin.pause();
         setTimeout(() => process.stdin.resume(), rnd() * 50);
       }
     });
     process.stdin.on('end', () => { ended = true; });
     burst();
     errLine();`,
  ];
}

/** Pieces in order with no hole, each copy the server's bytes at its offset: the total. */
function checkCopies(pieces: Piece[]): number {
  let offset = 0;
  for (const p of pieces) {
    expect(p.mark.offset).toBe(offset);
    expect(p.kind, `a gap at ${offset}`).toBe('bytes');
    if (
      p.kind === 'bytes' &&
      Buffer.from(p.data).toString('latin1') !== offsetText(offset, p.mark.bytes)
    )
      expect.fail(`the copy at ${offset} (${p.mark.bytes} bytes) is not the server's bytes`);
    offset += p.mark.bytes;
  }
  return offset;
}

/** The host's stderr as lines, with when each came (ms since the test's start). */
function lines(s: Readable | null): { all: string[]; at: Map<string, number> } {
  const got = { all: [] as string[], at: new Map<string, number>() };
  let pending = '';
  s?.on('data', (d: Buffer) => {
    pending += d.toString('latin1');
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const l of parts) {
      got.all.push(l);
      got.at.set(l, performance.now());
    }
  });
  return got;
}

describe.runIf(native)("the native relay's loop under traffic on every side", () => {
  it.each([
    [1, []],
    [2, []],
    [3, ['--slow-copier']],
    [4, ['--no-holds']],
    [5, ['--hold-pipes', '1', '--slow-copier']],
  ])(
    'seed %i %j: the host lines, Pipescope lines, stdout bursts and stderr lines all arrive whole, in order, in time',
    async (seed, relayArgs) => {
      const rnd = rng(seed * 7919);
      const r = start(chaosServer(seed), { relayArgs });
      let out = 0;
      let bad = 0;
      r.hostOut?.on('data', (d: Buffer) => {
        if (d.toString('latin1') !== offsetText(out, d.length)) bad += 1;
        out += d.length;
      });
      const err = lines(r.hostErr);
      const sent = new Map<string, number>();
      let seq = 0;
      for (let i = 0; i < 80; i++) {
        await sleep(rnd() * 30);
        // Now and then a long line (the server's stdin fills), or one in two writes with a
        // pause between (Pipescope's lines wait for its end).
        const body = 'x'.repeat(rnd() < 0.1 ? Math.floor(rnd() * 300_000) : Math.floor(rnd() * 60));
        const line = `h${i} ${body}\n`;
        if (rnd() < 0.2) {
          const cut = 1 + Math.floor(rnd() * (line.length - 1));
          r.hostIn?.write(line.slice(0, cut));
          await sleep(rnd() * 20);
          r.hostIn?.write(line.slice(cut));
        } else r.hostIn?.write(line);
        sent.set(`in h${i} ${body.length}`, performance.now());
        if (rnd() < 0.4) {
          const s = ++seq;
          const xs = Math.floor(rnd() * 40);
          r.ctrl.write(injectCommand(s, Buffer.from(`p${s} ${'x'.repeat(xs)}\n`)));
          sent.set(`in p${s} ${xs}`, performance.now());
        }
      }
      const budget = 3000;
      await waitFor(
        () => [...sent.keys()].every((k) => err.at.has(k)),
        budget * 2,
        'every line said back',
      );
      for (const [k, at] of sent)
        expect((err.at.get(k) as number) - at, `${k} waited`).toBeLessThan(budget);
      r.hostIn?.end();
      const [code] = await withTimeout(r.exited, 10_000, 'the relay to exit');
      expect(code).toBe(0);
      // Both ways, in order: the host's lines, Pipescope's, the server's stderr and stdout.
      for (const who of ['in h', 'in p'])
        expect(err.all.filter((l) => l.startsWith(who))).toEqual(
          [...sent.keys()].filter((k) => k.startsWith(who)),
        );
      const es = err.all.filter((l) => /^e\d/.test(l));
      expect(es).toEqual(es.map((_, i) => `e${i}`));
      expect(err.all.at(-1)).toBe(`end ${out}`);
      expect(bad, 'pieces of stdout out of place at the host').toBe(0);
      const dones = r.records.filter((x) => x.type === 'inject-done');
      expect(dones.map((x) => [x.seq, x.error])).toEqual(
        Array.from({ length: seq }, (_, i) => [i + 1, null]),
      );
      // The tap's copies: stdout's whole and in order, stderr's what the host read.
      expect(checkCopies(r.pieces[0])).toBe(out);
      const errCopies = r.pieces[1].map((p) =>
        p.kind === 'bytes' ? Buffer.from(p.data).toString('latin1') : '?',
      );
      expect(errCopies.join('')).toBe(`${err.all.join('\n')}\n`);
    },
    60_000,
  );

  it.each([
    ['its stdout /dev/null', 'ignore'],
    ['reading its stdout as fast as it can', 'pipe'],
  ] as const)(
    "a host's line is answered while the server's stdout never runs dry (the host %s)",
    async (_, hostOut) => {
      // While stdout keeps moving the loop never waits: stdin and stderr, found empty before,
      // are looked at again only by the poll it makes every SPIN_NS. A server faster than the
      // relay, for ever: its stdout is /dev/zero (fd 4); it answers each line on stderr.
      const r = start(['sh', '-c', 'while IFS= read -r l; do echo "got $l" >&2; done'], {
        host: ['pipe', hostOut, 'pipe'],
        binary: 'bash',
        relayArgs: ['-c', 'exec "$0" 4</dev/zero', NATIVE_RELAY],
      });
      // The copies (gigabytes of zeros) read and dropped: a tap that keeps up.
      for (const c of r.copies) c.removeAllListeners('data').resume();
      r.hostOut?.resume();
      const err = lines(r.hostErr);
      const delivered = () => {
        const states = r.records.filter((x) => x.type === 'state');
        const last = states.at(-1);
        return last?.type === 'state' ? last.deliveredBytes : 0;
      };
      await sleep(300); // the burst under way
      const waited: number[] = [];
      for (let i = 0; i < 12; i++) {
        const at = performance.now();
        r.hostIn?.write(`ping${i}\n`);
        await waitFor(() => err.at.has(`got ping${i}`), 5000, `the answer to ping${i}`, 1);
        waited.push((err.at.get(`got ping${i}`) as number) - at);
        await sleep(Math.random() * 100);
      }
      expect(delivered(), 'the burst moved').toBeGreaterThan(100 * 1024 * 1024);
      expect(
        Math.max(...waited),
        `each ping's round trip (ms): ${waited.map(Math.round)}`,
      ).toBeLessThan(1000);
      // The host's end, then the tap's abandon (the server is gone): the relay ends.
      r.hostIn?.end();
      await new Promise((ok) => r.server.once('exit', ok));
      r.ctrl.write(abandonCommand());
      const [code] = await withTimeout(r.exited, 10_000, 'the relay to exit');
      expect(code).toBe(0);
    },
    30_000,
  );

  it("a line of Pipescope's waits for a server that does not read, the host's next behind it: no spin, both in order", async () => {
    // in_step reads nothing of the host's while Pipescope's line waits: polled for all the same,
    // the host's next bytes woke the poll at once, for as long as the server stalled (100% CPU).
    const r = start(['sh', '-c', 'sleep 2; exec cat']);
    let out = '';
    r.hostOut?.on('data', (d: Buffer) => {
      out += d.toString('latin1');
    });
    r.hostErr?.resume();
    const line = `${'x'.repeat(900 * 1024)}\n`; // more than the server's stdin takes
    r.ctrl.write(injectCommand(1, Buffer.from(line)));
    await sleep(200);
    r.hostIn?.write('{"id":1}\n');
    await sleep(100);
    const cpu = () => {
      const f = readFileSync(`/proc/${r.relay.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(f[11]) + Number(f[12])) / 100;
    };
    const before = cpu();
    await sleep(800);
    expect(cpu() - before, "the relay's CPU (s) while the server stalled").toBeLessThan(0.3);
    await waitFor(() => out.length === line.length + 9, 10_000, 'both lines at the server');
    expect(out === `${line}{"id":1}\n`, 'in order').toBe(true);
    r.hostIn?.end();
    expect((await withTimeout(r.exited, 10_000, 'the relay to exit'))[0]).toBe(0);
  });

  it.each([
    [
      "the host's stdin",
      // The server closes its stdout and stderr at once and reads until its stdin ends.
      ['sh', '-c', 'exec >&- 2>&-; exec cat >/dev/null'],
      '(printf "a\\n"; sleep 0.3; printf "b\\n"; sleep 0.3) 3>&- 4<&- 5<&- 6<&- 7<&- 8<&- | exec "$0"',
    ],
    [
      "the server's stdout",
      ['cat'],
      'exec "$0" 3>/dev/null 4< <(printf "a\\n"; sleep 0.3; printf "b\\n"; sleep 0.3)',
    ],
  ])(
    '%s a pipe whose writer closes while the relay found it empty: its end is seen (POLLHUP alone)',
    async (what, argv, script) => {
      // A pipe's end polls as POLLHUP without POLLIN: it must clear the flag that says the fd
      // had nothing, or its EOF is never read and the relay never ends.
      const r = start(argv, { binary: 'bash', relayArgs: ['-c', script, NATIVE_RELAY] });
      let out = '';
      r.hostOut?.on('data', (d: Buffer) => {
        out += d.toString();
      });
      r.hostErr?.resume();
      r.hostIn?.end();
      expect((await withTimeout(r.exited, 5000, 'the relay to exit'))[0]).toBe(0);
      expect(out).toBe(what.includes('stdout') ? 'a\nb\n' : '');
    },
    15_000,
  );
});
