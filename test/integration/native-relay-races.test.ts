/**
 * The native relay built with ThreadSanitizer (gcc/clang -fsanitize=thread) and driven through
 * the paths where its main thread and the copier threads share state (copier.c: the ring and its
 * counters under ring_mu, atomics for the rest): a race there is what no reading of the output
 * shows. Skipped where the compiler has no ThreadSanitizer runtime, or it cannot run here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { abandonCommand } from '../../dist/electron/tap/native-records.js';
import { MiB, waitFor } from './helpers.js';
import { type RelayRun, relayStarter } from './relay-wire.js';
import { RELAY_SOURCES, TAP_RELAYS } from './tap-relays.js';

const DIR = mkdtempSync(path.join(tmpdir(), 'relay-tsan-'));
const BINARY = path.join(DIR, 'pipescope-relay-tsan');

/** Builds the relay with ThreadSanitizer; whether it runs here (its `exec` mode, on `true`). */
function buildTsan(): boolean {
  if (!TAP_RELAYS.some((r) => r.name === 'native')) return false;
  const cc = process.env.CC || 'cc';

  const built = spawnSync(
    cc,
    ['-O1', '-g', '-std=gnu11', '-pthread', '-fsanitize=thread', '-o', BINARY, ...RELAY_SOURCES],
    { stdio: 'ignore' },
  );
  if (built.status !== 0) return false;
  return spawnSync(BINARY, ['exec', String(process.pid), '--', 'true']).status === 0;
}
const tsan = buildTsan();

/** What ThreadSanitizer said of one run (it writes `<log_path>.<pid>`). */
function reports(r: RelayRun): string {
  return readdirSync(DIR)
    .filter((f) => f === `report.${r.relay.pid}`)
    .map((f) => readFileSync(path.join(DIR, f), 'utf8'))
    .join('\n');
}

afterAll(() => {
  rmSync(DIR, { recursive: true, force: true });
});

/** What the host reads of the server's stdout (its stderr drained); its stdin ended unless
 *  `keepStdin`. */
function hostBytes(r: RelayRun, keepStdin = false): () => number {
  let got = 0;
  r.hostOut?.on('data', (d: Buffer) => {
    got += d.length;
  });
  r.hostErr?.resume();
  if (!keepStdin) r.hostIn?.end();
  return () => got;
}

const start = relayStarter({
  binary: BINARY,
  // Threads the relay does not join at its exit are by design (it exits with them running).
  env: { TSAN_OPTIONS: `log_path=${path.join(DIR, 'report')} report_thread_leaks=0` },
});

describe.runIf(tsan)('the native relay under ThreadSanitizer', () => {
  it('an abandon while copies are held: no data race', async () => {
    // `abandoning` was a plain int the relay's thread set while the copiers read it.
    const r = start(['sh', '-c', 'echo hi; echo err >&2; exec sleep 30']);
    r.hostOut?.resume();
    r.hostErr?.resume();
    await waitFor(() => r.pieces[0].length > 0, 10_000, 'the first copy at the tap');
    r.ctrl.write(abandonCommand());
    r.hostIn?.end();
    const [code] = await r.exited;
    expect(reports(r)).not.toMatch(/ThreadSanitizer/);
    expect(code).toBe(0);
  }, 30_000);

  it('a 16 MiB answer with the copier kept behind (the relay copies too), then idle: no data race', async () => {
    const size = 16 * MiB;
    const r = start(
      [
        process.execPath,
        '-e',
        `process.stdout.write(Buffer.alloc(${size}, 0x61)); setTimeout(() => {}, 300);`,
      ],
      { relayArgs: ['--slow-copier'] },
    );
    const got = hostBytes(r);
    const [code] = await r.exited;
    expect(got()).toBe(size);
    expect(reports(r)).not.toMatch(/ThreadSanitizer/);
    expect(code).toBe(0);
  }, 60_000);

  it.each([
    ['through the holds', []],
    [
      'through one hold and the ring after it, the copier kept behind',
      ['--hold-pipes', '1', '--slow-copier'],
    ],
  ])(
    'a 24 MiB answer in bursts %s: no data race',
    async (_, relayArgs) => {
      // The holds (hold.c): the relay's thread tees into the newest, or makes a new one, while
      // the copier sends from the oldest and closes it, or, between two bursts, once they are
      // empty, makes the newest small again.
      const size = 24 * MiB;
      const r = start(
        [
          process.execPath,
          '-e',
          `let n = 0;
           const burst = () => {
             if (n++ < 12) process.stdout.write(Buffer.alloc(${size / 12}, 0x61), () => setTimeout(burst, 30));
           };
           burst();`,
        ],
        { relayArgs },
      );
      const got = hostBytes(r);
      const [code] = await r.exited;
      expect(got()).toBe(size);
      const copied = r.pieces[0].reduce((n, p) => n + (p.kind === 'bytes' ? p.mark.bytes : 0), 0);
      expect(copied).toBe(size);
      expect(reports(r)).not.toMatch(/ThreadSanitizer/);
      expect(code).toBe(0);
    },
    60_000,
  );

  it('a tap that closes its copies while a burst is held: no data race', async () => {
    const r = start([
      process.execPath,
      '-e',
      `process.stdin.on('data', () => process.stdout.write(Buffer.alloc(${8 * MiB}, 0x61)));`,
    ]);
    const got = hostBytes(r, true);
    r.hostIn?.write('go\n');
    await waitFor(() => got() > MiB, 10_000, 'the answer going by');
    for (const c of r.copies) c.destroy();
    r.hostIn?.write('go\n');
    await waitFor(() => got() === 16 * MiB, 10_000, 'both answers at the host');
    r.hostIn?.end();
    const [code] = await r.exited;
    expect(reports(r)).not.toMatch(/ThreadSanitizer/);
    expect(code).toBe(0);
  }, 30_000);

  it('a tap that closes its copies: no data race', async () => {
    const r = start([
      process.execPath,
      '-e',
      "process.stdin.on('data', (d) => { process.stdout.write(d); process.stderr.write(d); });",
    ]);
    let out = '';
    r.hostOut?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    r.hostErr?.resume();
    for (const c of r.copies) c.destroy();
    for (let i = 1; i <= 20; i++) r.hostIn?.write(`{"id":${i}}\n`);
    await waitFor(() => out.includes('{"id":20}'), 10_000, 'every answer at the host');
    r.hostIn?.end();
    const [code] = await r.exited;
    expect(reports(r)).not.toMatch(/ThreadSanitizer/);
    expect(code).toBe(0);
  }, 30_000);
});
