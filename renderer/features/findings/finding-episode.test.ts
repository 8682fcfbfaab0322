import { describe, expect, it } from 'vitest';
import type { FindingGroup } from '../../store/selectors';
import { episodeLine, figurePhrases } from './finding-episode';

const group = (over: Partial<FindingGroup>): FindingGroup => ({
  code: 'host-queue-stalled',
  level: 'warn',
  count: 1,
  firstAt: 2000,
  lastAt: 2000,
  messages: ['m'],
  evidence: null,
  state: 'event',
  since: null,
  resolvedAt: null,
  resolvedBy: null,
  figures: [],
  ...over,
});

describe('finding episodes in words', () => {
  it('active: since when and for how long; resolved: when and after how long', () => {
    expect(episodeLine(group({ state: 'active', since: 2000 }), 5500)).toBe(
      'active since 2.000 s (3.50 s)',
    );
    expect(episodeLine(group({ state: 'resolved', since: 2000, resolvedAt: 4210 }), 9000)).toBe(
      'resolved at 4.210 s, after 2.21 s',
    );
    expect(
      episodeLine(
        group({ state: 'resolved', since: 2000, resolvedAt: 6000, resolvedBy: 'session-end' }),
        null,
      ),
    ).toMatch(/^held until the session ended at 6.000 s/);
    expect(episodeLine(group({ count: 3, lastAt: 7000 }), null)).toBe(
      'seen 3 times, last at 7.000 s',
    );
  });

  it('figures say their moment: when raised, and the peak when it grew', () => {
    const phrases = figurePhrases([
      { label: 'queue depth', value: 13641, unit: 'count', at: 'raised', t: 2000 },
      { label: 'queue depth', value: 40787, unit: 'count', at: 'peak', t: 6200 },
      { label: 'frame bytes pending', value: 0, unit: 'bytes', at: 'raised', t: 2000 },
      { label: 'frame bytes pending', value: 0, unit: 'bytes', at: 'peak', t: 2000 },
      { label: 'queue wait', value: 247, unit: 'ms', at: 'raised', t: 2000 },
      { label: 'queue wait', value: 247, unit: 'ms', at: 'peak', t: 2000 },
    ]);
    expect(phrases).toEqual([
      'queue depth 13,641 when raised; peak 40,787 at 6.200 s',
      'queue wait 247 ms when raised',
    ]);
  });
});
