import { describe, expect, it } from 'vitest';
import { FINDING_LEVELS, type FindingCode, type LiveFinding } from '../../../shared/findings.js';
import type { Budgets } from '../../../shared/session-options.js';
import { FindingsEngine } from './findings-engine.js';
import type { TickState } from './tick-state.js';

const budgets: Budgets = {
  writeBlockedMs: 1000,
  dispatcherWaitMs: 500,
  dispatcherDepth: 100,
  stdinWaitMs: 2000,
  recoveryMs: 1000,
  outputBufferedMs: 2000,
  serverBusyMs: 2000,
  busyCpuPercent: 80,
  subprocessBlockedMs: 1000,
};

/** A healthy, idle, draining session at time t. */
function tick(over: Partial<TickState> = {}): TickState {
  return {
    t: 10_000,
    alive: true,
    stdoutEnded: false,
    readerMode: 'drain',
    readingStdout: true,
    notReadingSince: null,
    pendingBytes: 0,
    lastStdoutByteAt: 9_990,
    responsesOwed: 0,
    dispatcherLongestWaitMs: 0,
    dispatcherDepth: 0,
    queueOldestAgeMs: 0,
    stdinPendingSince: null,
    stdinPendingBytes: 0,
    ...over,
  };
}

interface Harness {
  engine: FindingsEngine;
  seen: { code: FindingCode; isNew: boolean; count: number }[];
}

function make(b: Budgets = budgets): Harness {
  const seen: Harness['seen'] = [];
  const engine = new FindingsEngine(b, (f: LiveFinding, isNew) =>
    seen.push({ code: f.code, isNew, count: f.count }),
  );
  return { engine, seen };
}

const codes = (h: Harness): FindingCode[] => h.engine.all().map((f) => f.code);
const find = (h: Harness, code: FindingCode): LiveFinding | undefined =>
  h.engine.all().find((f) => f.code === code);

describe('FindingsEngine: a healthy session', () => {
  it('raises nothing for a draining, quiet session', () => {
    const h = make();
    h.engine.evaluate(tick());
    h.engine.evaluate(tick({ t: 100_000, lastStdoutByteAt: 0, responsesOwed: 1 }));
    expect(codes(h)).toEqual([]);
    expect(h.seen).toEqual([]);
  });
});

describe('FindingsEngine: server-write-blocked', () => {
  it('raises on a mid-frame stall past the budget', () => {
    const h = make();
    h.engine.evaluate(tick({ pendingBytes: 65_536, lastStdoutByteAt: 9_000 })); // exactly 1000
    expect(codes(h)).toEqual([]);
    h.engine.evaluate(tick({ t: 10_001, pendingBytes: 65_536, lastStdoutByteAt: 9_000 }));
    expect(codes(h)).toEqual(['server-write-blocked']);
    const f = find(h, 'server-write-blocked');
    expect(f?.level).toBe('error');
    expect(f?.message).toMatch(/mid-frame at 65536 bytes/);
    expect(f?.firstAt).toBe(10_001);
  });

  it('raises when the host has not read stdout with a response owed', () => {
    const h = make();
    const s = tick({
      readerMode: 'paused',
      readingStdout: false,
      notReadingSince: 8_000,
      responsesOwed: 1,
      pendingBytes: 10,
    });
    h.engine.evaluate(s);
    const f = find(h, 'server-write-blocked');
    expect(f?.message).toMatch(/has not read stdout for 2000 ms \(reader paused\)/);
    expect(f?.message).toMatch(/1 response owed/);
    expect(f?.message).toMatch(/10 bytes of a frame pending/);
  });

  it('does not raise for a host not reading when no response is owed', () => {
    const h = make();
    h.engine.evaluate(
      tick({ readerMode: 'paused', readingStdout: false, notReadingSince: 0, responsesOwed: 0 }),
    );
    expect(codes(h)).toEqual([]);
  });

  it('does not raise before the not-reading budget passes', () => {
    const h = make();
    h.engine.evaluate(tick({ notReadingSince: 9_500, readingStdout: false, responsesOwed: 2 }));
    expect(codes(h)).toEqual([]);
  });

  it('does not raise when the process is dead or stdout ended', () => {
    const stalled = {
      pendingBytes: 100,
      lastStdoutByteAt: 0,
      notReadingSince: 0,
      responsesOwed: 3,
    };
    const dead = make();
    dead.engine.evaluate(tick({ ...stalled, alive: false }));
    expect(codes(dead)).toEqual([]);
    const ended = make();
    ended.engine.evaluate(tick({ ...stalled, stdoutEnded: true }));
    expect(codes(ended)).toEqual([]);
  });

  it('raises once per episode; a new episode increments the count only after it cleared', () => {
    const h = make();
    const stalled = tick({ pendingBytes: 5, lastStdoutByteAt: 0 });
    h.engine.evaluate(stalled);
    h.engine.evaluate({ ...stalled, t: 11_000 });
    h.engine.evaluate({ ...stalled, t: 12_000 });
    expect(find(h, 'server-write-blocked')?.count).toBe(1);
    expect(h.seen).toEqual([{ code: 'server-write-blocked', isNew: true, count: 1 }]);

    h.engine.evaluate(tick({ t: 13_000, pendingBytes: 0, lastStdoutByteAt: 13_000 }));
    expect(find(h, 'server-write-blocked')?.count).toBe(1);

    h.engine.evaluate(tick({ t: 20_000, pendingBytes: 7, lastStdoutByteAt: 14_000 }));
    const f = find(h, 'server-write-blocked');
    expect(f?.count).toBe(2);
    expect(f?.firstAt).toBe(10_000);
    expect(f?.lastAt).toBe(20_000);
    expect(h.seen.at(-1)).toEqual({ code: 'server-write-blocked', isNew: false, count: 2 });
  });
});

describe('FindingsEngine: host-queue-stalled', () => {
  it('raises on a reader wait for credits over budget', () => {
    const h = make();
    h.engine.evaluate(tick({ dispatcherLongestWaitMs: 500 }));
    expect(codes(h)).toEqual([]);
    h.engine.evaluate(tick({ dispatcherLongestWaitMs: 501 }));
    expect(codes(h)).toEqual(['host-queue-stalled']);
    expect(find(h, 'host-queue-stalled')?.level).toBe('warn');
  });

  it('raises on the age of the oldest queued message', () => {
    const h = make();
    h.engine.evaluate(tick({ queueOldestAgeMs: 800, dispatcherDepth: 3 }));
    expect(find(h, 'host-queue-stalled')?.message).toMatch(
      /queue wait over 500 ms\): when raised, the oldest queued message had waited 800 ms/,
    );
  });

  it('raises on queue depth over budget', () => {
    const h = make();
    h.engine.evaluate(tick({ dispatcherDepth: 100 }));
    expect(codes(h)).toEqual([]);
    h.engine.evaluate(tick({ dispatcherDepth: 101 }));
    expect(find(h, 'host-queue-stalled')?.message).toMatch(/queue depth 101/);
  });

  it('a longest wait that stays over budget is one episode', () => {
    const h = make();
    for (let t = 0; t < 10; t++) h.engine.evaluate(tick({ t, dispatcherLongestWaitMs: 900 }));
    expect(find(h, 'host-queue-stalled')?.count).toBe(1);
  });

  it('never in a tapped session: its queue is the observer’s, not the host’s', () => {
    const h = make();
    h.engine.evaluate(
      tick({
        tapped: true,
        queueOldestAgeMs: 5000,
        dispatcherDepth: 500,
        dispatcherLongestWaitMs: 900,
      }),
    );
    expect(codes(h)).toEqual([]);
  });
});

describe('FindingsEngine: episodes and figures', () => {
  it('a condition is raised active, then resolved when it stops holding, with when and why', () => {
    const h = make();
    const paused = { readingStdout: false, notReadingSince: 0, responsesOwed: 1 };
    h.engine.evaluate(tick({ t: 2_000, ...paused }));
    expect(find(h, 'server-write-blocked')).toMatchObject({ active: true, since: 2_000 });
    expect(find(h, 'server-write-blocked')).not.toHaveProperty('resolvedAt');
    h.engine.evaluate(tick({ t: 2_100, ...paused }));
    // The reader resumed and the answer came: nothing owed, reading again.
    h.engine.evaluate(tick({ t: 5_400, responsesOwed: 0 }));
    expect(find(h, 'server-write-blocked')).toMatchObject({
      active: false,
      since: 2_000,
      resolvedAt: 5_400,
      resolvedBy: 'condition',
      count: 1,
    });
    // Notified twice: raised, then resolved (not on every tick in between).
    expect(h.seen.map((x) => x.code)).toEqual(['server-write-blocked', 'server-write-blocked']);
    // A second episode opens it again: active, a new since, no resolvedAt.
    h.engine.evaluate(tick({ t: 9_000, ...paused, notReadingSince: 7_000 }));
    expect(find(h, 'server-write-blocked')).toMatchObject({ active: true, since: 9_000, count: 2 });
    expect(find(h, 'server-write-blocked')).not.toHaveProperty('resolvedAt');
  });

  it('figures say when they were taken: the depth when raised, and the peak while it held', () => {
    const h = make();
    h.engine.evaluate(tick({ t: 1_000, dispatcherDepth: 13_641, queueOldestAgeMs: 247 }));
    const raisedFigures = find(h, 'host-queue-stalled')?.figures;
    h.engine.evaluate(tick({ t: 2_000, dispatcherDepth: 40_787, queueOldestAgeMs: 900 }));
    h.engine.evaluate(tick({ t: 3_000, dispatcherDepth: 20_000, queueOldestAgeMs: 100 }));
    const f = find(h, 'host-queue-stalled');
    const fig = (label: string, at: 'raised' | 'peak') =>
      f?.figures?.find((x) => x.label === label && x.at === at);
    expect(fig('queue depth', 'raised')).toMatchObject({ value: 13_641, t: 1_000 });
    expect(fig('queue depth', 'peak')).toMatchObject({ value: 40_787, t: 2_000 });
    expect(fig('queue wait', 'peak')).toMatchObject({ value: 900, t: 2_000 });
    expect(f?.message).toMatch(/when raised, .*queue depth 13,641/);
    // A copy handed out before (a snapshot) kept its values: figures are replaced, not mutated.
    expect(raisedFigures?.find((x) => x.at === 'peak' && x.label === 'queue depth')?.value).toBe(
      13_641,
    );
    // Peaks move silently: one notification (the raise) for three ticks.
    expect(h.seen).toHaveLength(1);
    h.engine.evaluate(tick({ t: 4_000, dispatcherDepth: 0 }));
    expect(find(h, 'host-queue-stalled')).toMatchObject({ active: false, resolvedAt: 4_000 });
    expect(fig('queue depth', 'peak')?.value).toBe(40_787);
  });

  it('the end of the session ends every open episode, and leaves events alone', () => {
    const h = make();
    h.engine.evaluate(tick({ t: 3_000, stdinPendingSince: 0 }));
    h.engine.raise('stdout-pollution', 'banner', 500);
    h.engine.endEpisodes(5_000);
    expect(find(h, 'stdin-blocked')).toMatchObject({
      active: false,
      resolvedAt: 5_000,
      resolvedBy: 'session-end',
    });
    expect(find(h, 'stdout-pollution')).not.toHaveProperty('active');
  });
});

describe('FindingsEngine: stdin-blocked', () => {
  it('raises when a stdin write waited past the budget', () => {
    const h = make();
    h.engine.evaluate(tick({ stdinPendingSince: 8_000, stdinPendingBytes: 1_048_576 }));
    expect(codes(h)).toEqual([]);
    h.engine.evaluate(tick({ t: 10_001, stdinPendingSince: 8_000, stdinPendingBytes: 1_048_576 }));
    const f = find(h, 'stdin-blocked');
    expect(f?.level).toBe('error');
    expect(f?.message).toMatch(/1048576 bytes pending/);
  });

  it('counts a second episode after the write drained', () => {
    const h = make();
    h.engine.evaluate(tick({ stdinPendingSince: 0 }));
    h.engine.evaluate(tick({ t: 11_000, stdinPendingSince: null }));
    h.engine.evaluate(tick({ t: 20_000, stdinPendingSince: 15_000 }));
    expect(find(h, 'stdin-blocked')?.count).toBe(2);
  });

  it('rules have independent episodes', () => {
    const h = make();
    h.engine.evaluate(tick({ stdinPendingSince: 0, dispatcherDepth: 500 }));
    h.engine.evaluate(tick({ t: 10_100, stdinPendingSince: null, dispatcherDepth: 500 }));
    h.engine.evaluate(tick({ t: 10_200, stdinPendingSince: 0, dispatcherDepth: 500 }));
    expect(find(h, 'stdin-blocked')?.count).toBe(2);
    expect(find(h, 'host-queue-stalled')?.count).toBe(1);
  });
});

describe('FindingsEngine: raise and reports', () => {
  it('uses the level table of shared/findings.ts for every code', () => {
    const h = make();
    const all = Object.keys(FINDING_LEVELS) as FindingCode[];
    all.forEach((code, i) => {
      h.engine.raise(code, `m ${code}`, i);
    });
    for (const f of h.engine.all()) expect(f.level).toBe(FINDING_LEVELS[f.code]);
    expect(find(h, 'stdout-pollution')?.level).toBe('error');
    expect(find(h, 'cancel-ignored')?.level).toBe('warn');
    expect(find(h, 'stderr-dropped')?.level).toBe('info');
    expect(h.engine.has('oversize-frame')).toBe(true);
  });

  it('raise of an existing code counts, updates lastAt and the message', () => {
    const h = make();
    h.engine.raise('stdout-pollution', 'first', 1);
    h.engine.raise('stdout-pollution', 'second', 5);
    const f = find(h, 'stdout-pollution');
    expect(f).toMatchObject({ count: 2, firstAt: 1, lastAt: 5, message: 'second' });
    expect(h.seen.map((s) => s.isNew)).toEqual([true, false]);
    expect(h.engine.has('server-exited')).toBe(false);
  });

  it('again counts one more episode of a raised finding, keeping its message', () => {
    const h = make();
    expect(h.engine.again('stdout-pollution', 1)).toBe(false); // none yet: nothing counted
    h.engine.raise('stdout-pollution', 'banner', 2);
    expect(h.engine.again('stdout-pollution', 5)).toBe(true);
    const f = h.engine.all()[0];
    expect([f.count, f.lastAt, f.message]).toEqual([2, 5, 'banner']);
    expect(h.seen.map((s) => s.isNew)).toEqual([true, false]);
  });

  it('keeps per-request findings apart and folds them per code in the report', () => {
    const h = make();
    h.engine.raise('cancel-ignored', 'request 1 answered late', 3, 1);
    h.engine.raise('cancel-ignored', 'request 2 answered late', 4, 2);
    h.engine.raise('cancel-ignored', 'request 2 again', 6, 2);
    h.engine.raise('stdout-pollution', 'banner', 1);
    expect(h.engine.all().map((f) => [f.code, f.requestId])).toEqual([
      ['stdout-pollution', undefined],
      ['cancel-ignored', 1],
      ['cancel-ignored', 2],
    ]);
    expect(h.engine.forReport()).toEqual([
      { code: 'stdout-pollution', level: 'error', message: 'banner' },
      {
        code: 'cancel-ignored',
        level: 'warn',
        message: 'request 1 answered late (3 times, requests 1, 2)',
      },
    ]);
  });
});

describe("FindingsEngine: a tapped session, timed by the relay's own clock", () => {
  // A budget under the 250 ms the native relay may hold a burst's copies after the host read
  // them, plus a tick: the ticks alone cannot tell when the host read again, or when the
  // relay last read the server (ahead of those copies).
  const tight = make.bind(null, { ...budgets, writeBlockedMs: 200 });
  const stalled = (t: number): TickState =>
    tick({ t, tapped: true, readingStdout: false, notReadingSince: 1_000, responsesOwed: 1 });
  function afterStall(): Harness {
    const h = tight();
    for (let t = 1_000; t <= 4_500; t += 100)
      h.engine.evaluate({ ...stalled(t), pendingBytes: 65_536, lastStdoutByteAt: 1_000 });
    expect(codes(h)).toEqual(['host-not-reading']);
    return h;
  }
  const midFrame = { tapped: true, responsesOwed: 1, pendingBytes: 65_536, hostResumedAt: 4_550 };

  it('a server the relay keeps reading is not silent while its copies are held', () => {
    const h = afterStall();
    // The copies of all it wrote since 1,000 are still held: the engine's last byte is old.
    for (let t = 4_600; t <= 5_000; t += 100)
      h.engine.evaluate(tick({ t, ...midFrame, lastStdoutByteAt: 1_000, serverReadAt: t - 20 }));
    expect(codes(h)).toEqual(['host-not-reading']);
  });

  it('but is named once the relay has read nothing from it past the budget', () => {
    const h = afterStall();
    const quiet = { ...midFrame, lastStdoutByteAt: 1_000, serverReadAt: 4_560 };
    h.engine.evaluate(tick({ t: 4_760, ...quiet }));
    expect(codes(h)).toEqual(['host-not-reading']);
    h.engine.evaluate(tick({ t: 4_761, ...quiet }));
    expect(codes(h)).toEqual(['host-not-reading', 'server-write-blocked']);
    expect(find(h, 'server-write-blocked')?.message).toMatch(/silent for 201 ms$/);
  });

  it("counts no silence past the relay's latest state (held back with a burst's copies)", () => {
    const h = afterStall();
    // The relay's last state (4,600) says it read the server at 4,598; the native relay holds
    // the next states with the burst's copies (up to 250 ms), the server writing all along.
    const held = { ...midFrame, lastStdoutByteAt: 1_000, serverReadAt: 4_598, relayStateAt: 4_600 };
    for (let t = 4_700; t <= 4_850; t += 50) h.engine.evaluate(tick({ t, ...held }));
    expect(codes(h)).toEqual(['host-not-reading']);
    // States that keep coming with no read of the server since: silent by the relay's word.
    for (const at of [4_700, 4_798])
      h.engine.evaluate(tick({ t: at + 5, ...held, relayStateAt: at }));
    expect(codes(h)).toEqual(['host-not-reading']);
    h.engine.evaluate(tick({ t: 4_805, ...held, relayStateAt: 4_799 }));
    expect(codes(h)).toEqual(['host-not-reading', 'server-write-blocked']);
    expect(find(h, 'server-write-blocked')?.message).toMatch(/silent for 201 ms$/);
  });

  it('a stall no tick saw still bounds a blocked write sampled during it', () => {
    const h = tight();
    // Every tick saw the host reading; the relay says it took bytes again at 9,950, and the
    // process was sampled at 9,940, blocked 1.5 s behind that stall.
    const evidence = { pid: 5000, command: 'srv', state: 'S', cpuPercent: 0, ms: 1_500 };
    const writeProof = { text: 'pid 5000 in write(1)', blockedMs: 1_500, at: 9_940, evidence };
    h.engine.evaluate(tick({ tapped: true, responsesOwed: 1, hostResumedAt: 9_950, writeProof }));
    expect(codes(h)).toEqual([]);
  });
});
