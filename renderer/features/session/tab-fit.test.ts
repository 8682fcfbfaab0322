import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitTabs, sameFit } from './tab-fit';

describe('fitTabs', () => {
  it('shows every tab when they fit', () => {
    expect(fitTabs([100, 100, 100], 300, 1)).toEqual({ shown: [0, 1, 2], hidden: [] });
    expect(fitTabs([], 10, -1)).toEqual({ shown: [], hidden: [] });
  });

  it('keeps the active tab shown, then fills the room in order', () => {
    // 10 tabs of 120 px in 500 px: the active last one and the first three.
    const widths = Array.from({ length: 10 }, () => 120);
    expect(fitTabs(widths, 500, 9)).toEqual({ shown: [0, 1, 2, 9], hidden: [3, 4, 5, 6, 7, 8] });
    expect(fitTabs(widths, 500, 0).shown).toEqual([0, 1, 2, 3]);
  });

  it('counts the gaps between tabs', () => {
    expect(fitTabs([100, 100, 100], 302, -1, 2).hidden).toEqual([2]);
    expect(fitTabs([100, 100, 100], 304, -1, 2).hidden).toEqual([]);
  });

  it('ends the row at the first tab that does not fit (no holes in the order)', () => {
    expect(fitTabs([100, 300, 50, 50], 260, -1)).toEqual({ shown: [0], hidden: [1, 2, 3] });
  });

  it('shows the active tab even when it alone is wider than the room', () => {
    expect(fitTabs([100, 400], 300, 1)).toEqual({ shown: [1], hidden: [0] });
  });

  it('never loses a tab, never hides the active one, never overfills past it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 20, max: 240 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: -1, max: 39 }),
        fc.integer({ min: 0, max: 8 }),
        (widths, room, pick, gap) => {
          const active = pick < widths.length ? pick : -1;
          const { shown, hidden } = fitTabs(widths, room, active, gap);
          expect([...shown, ...hidden].sort((a, b) => a - b)).toEqual(widths.map((_, i) => i));
          if (active >= 0) expect(shown).toContain(active);
          const used =
            shown.reduce((s, i) => s + widths[i], 0) + gap * Math.max(0, shown.length - 1);
          if (hidden.length > 0 && shown.length > 1) expect(used).toBeLessThanOrEqual(room);
        },
      ),
    );
  });
});

describe('sameFit', () => {
  it('compares the hidden tabs', () => {
    expect(sameFit({ shown: [0], hidden: [1] }, { shown: [0], hidden: [1] })).toBe(true);
    expect(sameFit({ shown: [0], hidden: [1] }, { shown: [1], hidden: [0] })).toBe(false);
  });
});
