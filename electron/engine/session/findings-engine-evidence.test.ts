import { describe, expect, it } from 'vitest';
import type { FindingCode, LiveFinding } from '../../../shared/findings.js';
import type { FindingEvidence } from '../../../shared/process.js';
import { DEFAULT_BUDGETS } from '../../../shared/session-options.js';
import { FindingsEngine } from './findings-engine.js';
import type { TickState, WriteProof } from './tick-state.js';

function make() {
  const seen: { code: FindingCode; isNew: boolean; count: number }[] = [];
  const engine = new FindingsEngine(DEFAULT_BUDGETS, (f: LiveFinding, isNew) =>
    seen.push({ code: f.code, isNew, count: f.count }),
  );
  const find = (code: FindingCode) => engine.all().find((f) => f.code === code);
  return { engine, seen, find };
}

/** A live session reading stdout with one response owed, stdout quiet but not mid-frame. */
function tick(over: Partial<TickState> = {}): TickState {
  return {
    t: 10_000,
    alive: true,
    stdoutEnded: false,
    readerMode: 'drain',
    readingStdout: true,
    notReadingSince: null,
    pendingBytes: 0,
    lastStdoutByteAt: 5000,
    responsesOwed: 1,
    dispatcherLongestWaitMs: 0,
    dispatcherDepth: 0,
    queueOldestAgeMs: 0,
    stdinPendingSince: null,
    stdinPendingBytes: 0,
    ...over,
  };
}

const EVIDENCE: FindingEvidence = {
  pid: 5000,
  command: 'python3 srv.py',
  state: 'S',
  wchan: 'pipe_write',
  syscall: { name: 'write', fd: 1, bytes: 1_000_000 },
  cpuPercent: 0,
  ms: 1500,
};

function proof(blockedMs: number): WriteProof {
  return {
    text: `pid 5000 is blocked in write(1, 1,000,000 B) for ${(blockedMs / 1000).toFixed(1)} s`,
    blockedMs,
    evidence: { ...EVIDENCE, ms: blockedMs },
  };
}

describe('FindingsEngine.retract', () => {
  it('takes back a finding for a request, and only that one', () => {
    const h = make();
    h.engine.raise('cancel-ignored', 'request 3 answered late', 100, 3);
    h.engine.raise('cancel-ignored', 'request 4 answered late', 110, 4);
    expect(h.engine.retract('cancel-ignored', 3)).toBe(true);
    expect(h.engine.all().map((f) => f.requestId)).toEqual([4]);
    expect(h.engine.has('cancel-ignored')).toBe(true);
    expect(h.engine.retract('cancel-ignored', 3)).toBe(false);
    expect(h.engine.retract('cancel-ignored', 99)).toBe(false);
    expect(h.engine.retract('cancel-ignored')).toBe(false);
    expect(h.engine.retract('cancel-ignored', 4)).toBe(true);
    expect(h.engine.has('cancel-ignored')).toBe(false);
    expect(h.engine.forReport()).toEqual([]);
  });

  it('tells its listeners, with a count of 0 (a trace records that it was taken back)', () => {
    const h = make();
    h.engine.raise('cancel-ignored', 'request 3 answered late', 100, 3);
    h.engine.retract('cancel-ignored', 3);
    expect(h.seen.at(-1)).toEqual({ code: 'cancel-ignored', isNew: false, count: 0 });
    h.engine.retract('cancel-ignored', 3);
    expect(h.seen).toHaveLength(2);
  });

  it('takes back a finding without a request by its code', () => {
    const h = make();
    h.engine.raise('server-busy', 'busy', 100);
    expect(h.engine.retract('server-busy', 1)).toBe(false);
    expect(h.engine.retract('server-busy')).toBe(true);
    expect(h.engine.all()).toEqual([]);
  });

  it('a finding raised again after a retraction is new, counted from 1', () => {
    const h = make();
    h.engine.raise('cancel-ignored', 'late', 100, 3);
    h.engine.raise('cancel-ignored', 'late', 200, 3);
    h.engine.retract('cancel-ignored', 3);
    const f = h.engine.raise('cancel-ignored', 'late again', 300, 3);
    expect(f).toMatchObject({ count: 1, firstAt: 300, message: 'late again' });
    expect(h.seen.at(-1)).toEqual({ code: 'cancel-ignored', isNew: true, count: 1 });
  });
});

describe('FindingsEngine.raise with evidence', () => {
  it('keeps the evidence on the finding and in the report', () => {
    const h = make();
    h.engine.raise('subprocess-blocked', 'child blocked', 100, undefined, EVIDENCE);
    expect(h.find('subprocess-blocked')?.evidence).toEqual(EVIDENCE);
    expect(h.engine.forReport()[0]).toEqual({
      code: 'subprocess-blocked',
      level: 'error',
      message: 'child blocked',
      evidence: EVIDENCE,
    });
  });

  it('has no evidence key when none was given', () => {
    const h = make();
    h.engine.raise('server-busy', 'busy', 100);
    expect(h.find('server-busy')).not.toHaveProperty('evidence');
    expect(h.engine.forReport()[0]).not.toHaveProperty('evidence');
  });

  it('a recurrence without evidence keeps the old; with evidence, takes the new', () => {
    const h = make();
    h.engine.raise('server-busy', 'busy 1', 100, undefined, EVIDENCE);
    h.engine.raise('server-busy', 'busy 2', 200);
    expect(h.find('server-busy')).toMatchObject({
      count: 2,
      message: 'busy 2',
      evidence: EVIDENCE,
    });
    const newer = { ...EVIDENCE, cpuPercent: 97, ms: 4000 };
    h.engine.raise('server-busy', 'busy 3', 300, undefined, newer);
    expect(h.find('server-busy')?.evidence).toEqual(newer);
  });
});

describe('FindingsEngine: the pipe-full trigger (process proof of a blocked write)', () => {
  it('raises server-write-blocked while the host reads, when write(1) has lasted past the budget', () => {
    const h = make();
    h.engine.evaluate(tick({ writeProof: proof(1500) }));
    const f = h.find('server-write-blocked');
    expect(f?.message).toBe(
      'server alive with 1 response owed: the pipe stayed full (reader drain); pid 5000 is ' +
        'blocked in write(1, 1,000,000 B) for 1.5 s',
    );
    expect(f?.evidence).toEqual({ ...EVIDENCE, ms: 1500 });
    expect(f?.firstAt).toBe(10_000);
  });

  it('once per episode', () => {
    const h = make();
    h.engine.evaluate(tick({ writeProof: proof(1500) }));
    h.engine.evaluate(tick({ t: 10_100, writeProof: proof(1600) }));
    expect(h.find('server-write-blocked')?.count).toBe(1);
    h.engine.evaluate(tick({ t: 10_200, writeProof: null }));
    h.engine.evaluate(tick({ t: 10_300, writeProof: proof(1100) }));
    expect(h.find('server-write-blocked')?.count).toBe(2);
  });

  const misses: [string, Partial<TickState>][] = [
    ['blocked exactly the budget', { writeProof: proof(DEFAULT_BUDGETS.writeBlockedMs) }],
    ['no proof', { writeProof: null }],
    ['an idle event loop (blockedMs 0)', { writeProof: proof(0) }],
    ['nothing owed', { writeProof: proof(5000), responsesOwed: 0 }],
    ['the server exited', { writeProof: proof(5000), alive: false }],
    ["stdout's end came", { writeProof: proof(5000), stdoutEnded: true }],
  ];
  for (const [name, over] of misses) {
    it(`does not fire: ${name}`, () => {
      const h = make();
      h.engine.evaluate(tick(over));
      expect(h.engine.all()).toEqual([]);
    });
  }

  it('adds the proof to a host-not-reading finding, with its evidence', () => {
    const h = make();
    const idle: WriteProof = {
      text: 'pid 5000 is idle in its event loop with a non-blocking stdout',
      blockedMs: 0,
      evidence: { pid: 5000, syscall: { name: 'epoll_wait', fd: null, bytes: null } },
    };
    h.engine.evaluate(
      tick({
        readingStdout: false,
        readerMode: 'paused',
        notReadingSince: 8000,
        writeProof: idle,
      }),
    );
    const f = h.find('server-write-blocked');
    expect(f?.message).toBe(
      'server alive with 1 response owed: the host has not read stdout for 2000 ms (reader ' +
        'paused); pid 5000 is idle in its event loop with a non-blocking stdout',
    );
    expect(f?.evidence).toEqual(idle.evidence);
  });
});

describe('FindingsEngine: active findings', () => {
  it('a time-based finding is raised active and marked inactive when its episode ends', () => {
    const h = make();
    h.engine.evaluate(tick({ writeProof: proof(1500) }));
    expect(h.find('server-write-blocked')?.active).toBe(true);
    expect(h.seen).toEqual([{ code: 'server-write-blocked', isNew: true, count: 1 }]);
    h.engine.evaluate(tick({ t: 10_100, writeProof: null }));
    expect(h.find('server-write-blocked')?.active).toBe(false);
    expect(h.seen).toHaveLength(2);
    // Still over: no more notifications.
    h.engine.evaluate(tick({ t: 10_200, writeProof: null }));
    expect(h.seen).toHaveLength(2);
    h.engine.evaluate(tick({ t: 10_300, writeProof: proof(1200) }));
    expect(h.find('server-write-blocked')).toMatchObject({ active: true, count: 2 });
  });

  it('an event finding (raised outside an episode) has no active flag', () => {
    const h = make();
    h.engine.raise('stdout-pollution', 'banner', 5);
    expect(h.find('stdout-pollution')).not.toHaveProperty('active');
  });

  it('opening marks only its own code active, and ends with the call', () => {
    const h = make();
    h.engine.opening('server-busy', () => {
      h.engine.raise('server-busy', 'busy', 5);
      h.engine.raise('stdout-pollution', 'banner', 5);
    });
    h.engine.raise('subprocess-blocked', 'child', 6);
    expect(h.find('server-busy')?.active).toBe(true);
    expect(h.find('stdout-pollution')).not.toHaveProperty('active');
    expect(h.find('subprocess-blocked')).not.toHaveProperty('active');
  });

  it('setActive notifies only on a change, and ignores a code never raised', () => {
    const h = make();
    h.engine.setActive('server-busy', false, 1);
    expect(h.engine.all()).toEqual([]);
    expect(h.seen).toEqual([]);
    h.engine.opening('server-busy', () => h.engine.raise('server-busy', 'busy', 5));
    h.engine.setActive('server-busy', true, 6);
    expect(h.seen).toHaveLength(1);
    h.engine.setActive('server-busy', false, 9);
    h.engine.setActive('server-busy', false, 10);
    expect(h.seen).toHaveLength(2);
    expect(h.find('server-busy')).toMatchObject({
      active: false,
      since: 5,
      resolvedAt: 9,
      resolvedBy: 'condition',
    });
  });
});

describe('FindingsEngine: a proof that comes a sample late (amend)', () => {
  const notReading = { readingStdout: false, readerMode: 'paused' as const, notReadingSince: 8000 };

  it('attaches the proof and adds what it shows to the message, once, while still blocked', () => {
    const h = make();
    h.engine.evaluate(tick({ ...notReading, writeProof: null }));
    const f = h.find('server-write-blocked');
    expect(f).not.toHaveProperty('evidence');
    const before = f?.message ?? '';
    expect(before).toBe(
      'server alive with 1 response owed: the host has not read stdout for 2000 ms (reader paused)',
    );
    h.engine.evaluate(tick({ ...notReading, t: 10_100, writeProof: proof(2000) }));
    expect(h.find('server-write-blocked')).toMatchObject({
      count: 1,
      evidence: { ...EVIDENCE, ms: 2000 },
      message: `${before}; pid 5000 is blocked in write(1, 1,000,000 B) for 2.0 s`,
    });
    expect(h.seen.at(-1)).toEqual({ code: 'server-write-blocked', isNew: false, count: 1 });
    // A later proof does not replace the first or grow the message.
    h.engine.evaluate(tick({ ...notReading, t: 10_200, writeProof: proof(2100) }));
    expect(h.find('server-write-blocked')?.evidence?.ms).toBe(2000);
    expect(h.find('server-write-blocked')?.message.match(/; pid 5000/g)).toHaveLength(1);
  });

  it('is not attached once the condition no longer holds', () => {
    const h = make();
    h.engine.evaluate(tick({ ...notReading, writeProof: null }));
    // The host reads again and the write finished below the budget: not blocked any more.
    h.engine.evaluate(tick({ t: 10_100, writeProof: proof(500) }));
    expect(h.find('server-write-blocked')).not.toHaveProperty('evidence');
  });

  it('amend does nothing for a finding never raised', () => {
    const h = make();
    h.engine.amend('server-write-blocked', EVIDENCE, 'x');
    expect(h.engine.all()).toEqual([]);
    expect(h.seen).toEqual([]);
  });
});

describe('FindingsEngine: a tapped host that stopped reading, then read again', () => {
  // The host sat on an 8 MiB answer from t=1000 to t=4500; the server is mid-frame behind it.
  const stalled = (t: number): TickState =>
    tick({
      t,
      tapped: true,
      readingStdout: false,
      notReadingSince: 1_000,
      pendingBytes: 65_536,
      lastStdoutByteAt: 1_000,
      hostPendingBytes: 300_000,
    });
  // Reading again: the copies of what the server wrote since are still on their way.
  const resumed = (t: number, over: Partial<TickState> = {}): TickState =>
    tick({ t, tapped: true, pendingBytes: 65_536, lastStdoutByteAt: 1_000, ...over });
  const codes = (h: ReturnType<typeof make>): FindingCode[] => h.engine.all().map((f) => f.code);

  function afterStall() {
    const h = make();
    for (let t = 1_000; t <= 4_500; t += 100) h.engine.evaluate(stalled(t));
    expect(codes(h)).toEqual(['host-not-reading']);
    return h;
  }

  it('the server is not blamed for the silence the host caused', () => {
    const h = afterStall();
    h.engine.evaluate(resumed(4_600));
    h.engine.evaluate(resumed(4_800));
    expect(codes(h)).toEqual(['host-not-reading']);
  });

  it('nor for a write the process showed blocked while the host was not reading', () => {
    const h = afterStall();
    h.engine.evaluate(resumed(4_600, { writeProof: proof(3_400), pendingBytes: 0 }));
    expect(codes(h)).toEqual(['host-not-reading']);
    // Still in that write() 1.1 s after the host read again: the server's own doing.
    h.engine.evaluate(resumed(5_600, { writeProof: proof(4_500), pendingBytes: 0 }));
    expect(codes(h)).toEqual(['host-not-reading', 'server-write-blocked']);
  });

  it('nor for a write a stale sample showed blocked behind the host', () => {
    const h = afterStall();
    // The sampler stretches its cadence to its cost (1 % of a core: a 13 ms sample waits
    // 1.3 s), so the latest sample, still fresh (< 1.5 s), may be one taken at 4,400 while the
    // host held the server back: blocked 3.3 s then, which says nothing about after 4,500.
    const sampledDuringStall: WriteProof = { ...proof(3_300), at: 4_400 };
    for (let t = 4_600; t <= 5_700; t += 100)
      h.engine.evaluate(
        tick({ t, tapped: true, lastStdoutByteAt: t, writeProof: sampledDuringStall }),
      );
    expect(codes(h)).toEqual(['host-not-reading']);
  });

  it('but is, once it stays silent past the budget after the host read again', () => {
    const h = afterStall();
    h.engine.evaluate(resumed(5_500));
    expect(codes(h)).toEqual(['host-not-reading']);
    h.engine.evaluate(resumed(5_501));
    expect(codes(h)).toEqual(['host-not-reading', 'server-write-blocked']);
    expect(h.find('server-write-blocked')?.message).toMatch(
      /silent for 1001 ms since the host read again/,
    );
  });
});
