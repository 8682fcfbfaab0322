/**
 * The native relay's state records on real processes: when the host took bytes again after a
 * stall, and when the relay last read the server's stdout. The findings engine counts a tapped
 * server's silence from these (findings-engine.ts), not from the copies, which the relay may
 * hold for up to 250 ms after the host has read them.
 */
import { describe, expect, it } from 'vitest';
import type { NativeRecord } from '../../dist/electron/tap/native-records.js';
import { MiB, waitFor } from './helpers.js';
import { relayStarter } from './relay-wire.js';
import { TAP_RELAYS } from './tap-relays.js';

const native = TAP_RELAYS.some((r) => r.name === 'native');
const start = relayStarter();
type State = Extract<NativeRecord, { type: 'state' }>;
const ms = (ns: bigint): number => Number(ns) / 1e6;

describe.runIf(native)("the native relay's state", () => {
  it('says when the host read again after a stall, and when the server was last read', async () => {
    // 4 MiB at once, then the server waits for stdin's end.
    const r = start([
      process.execPath,
      '-e',
      `process.stdout.write(Buffer.alloc(${4 * MiB}, 120)); process.stdin.resume();`,
    ]);
    r.hostErr?.resume();
    const states = (): State[] => r.records.filter((x): x is State => x.type === 'state');
    // The host does not read until the relay has said, for 300 ms, that it cannot write.
    await waitFor(() => states().some((s) => s.hostBlocked), 10_000, 'the relay blocked');
    await new Promise((res) => setTimeout(res, 300));
    const stall = states().find((s) => s.hostBlocked) as State;
    let got = 0;
    r.hostOut?.on('data', (d: Buffer) => {
      got += d.length;
    });
    await waitFor(() => got === 4 * MiB, 10_000, 'the whole answer at the host');
    r.hostIn?.end();
    expect((await r.exited)[0]).toBe(0);

    // The host took bytes again after the stall began, at least 300 ms later, and no state
    // says so before it happened.
    const after = states().filter((s) => s.t > (stall.hostBlockedSince as bigint));
    const resumed = after.find((s) => !s.hostBlocked && s.hostResumedAt !== null) as State;
    expect(resumed).toBeDefined();
    const resumedAt = resumed.hostResumedAt as bigint;
    expect(ms(resumedAt - (stall.hostBlockedSince as bigint))).toBeGreaterThanOrEqual(300);
    for (const s of states())
      if (s.hostResumedAt !== null) expect(s.hostResumedAt <= s.t).toBe(true);

    // The server's last read moves forward only, is never later than its state, and in the
    // last state is the read of the answer's last bytes (the last mark of stdout).
    const reads = states().map((s) => s.serverReadAt);
    expect(reads[0] === null || (reads[0] as bigint) <= states()[0].t).toBe(true);
    for (let i = 1; i < reads.length; i++)
      if (reads[i - 1] !== null)
        expect((reads[i] as bigint) >= (reads[i - 1] as bigint)).toBe(true);
    let lastRead = 0n;
    for (const m of r.records)
      if (m.type === 'mark' && m.dir === 0 && m.bytes > 0 && m.readAt > lastRead)
        lastRead = m.readAt;
    expect(states().at(-1)?.serverReadAt).toBe(lastRead);
  });
});
