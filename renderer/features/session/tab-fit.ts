/**
 * Which session tabs the tab bar shows and which go to the "⋯ N more" list, from their
 * measured widths. The active tab is always shown (issue 22: at 1280 px with ten sessions it
 * was off-screen); the others fill the room left in their order, and the first that does not
 * fit ends the row (a row with holes in its order would be harder to read). Pure.
 */
export interface TabFit {
  /** Indexes of the tabs shown, in order. */
  shown: number[];
  /** Indexes of the tabs only the overflow list offers, in order. */
  hidden: number[];
}

/**
 * `widths`: each tab's width in px; `room`: the px the row has; `active`: the index of the
 * active tab (-1: none); `gap`: px between two tabs.
 */
export function fitTabs(widths: readonly number[], room: number, active: number, gap = 0): TabFit {
  const all = widths.map((_, i) => i);
  const total = widths.reduce((sum, w) => sum + w, 0) + gap * Math.max(0, widths.length - 1);
  if (total <= room) return { shown: all, hidden: [] };
  const keep = new Set<number>();
  let used = 0;
  if (active >= 0 && active < widths.length) {
    keep.add(active);
    used = widths[active];
  }
  for (const i of all) {
    if (i === active) continue;
    const next = used + (keep.size > 0 ? gap : 0) + widths[i];
    if (next > room) break;
    keep.add(i);
    used = next;
  }
  return {
    shown: all.filter((i) => keep.has(i)),
    hidden: all.filter((i) => !keep.has(i)),
  };
}

/** Same fit, compared by content (a re-measure that changes nothing must not re-render). */
export function sameFit(a: TabFit, b: TabFit): boolean {
  return a.hidden.length === b.hidden.length && a.hidden.every((i, k) => i === b.hidden[k]);
}
