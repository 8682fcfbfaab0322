/**
 * Windowing math for VirtualList: which rows of a fixed-row-height list are in the DOM.
 * Pure (no DOM), so it is unit-tested directly; VirtualList.tsx feeds it scroll positions.
 */

export interface WindowInput {
  scrollTop: number;
  /** Viewport height in px (0 before the container has been measured). */
  height: number;
  rowHeight: number;
  count: number;
  overscan: number;
}

export interface ListWindow {
  /** First rendered index (inclusive). */
  start: number;
  /** Last rendered index (exclusive); `end - start` rows are in the DOM. */
  end: number;
  /** Pixel offset of row `start` from the top of the content. */
  offsetTop: number;
  /** Height of the whole (virtual) content in px. */
  totalHeight: number;
}

/** How close to the bottom (px) still counts as "at the bottom" for stick-to-bottom. */
export const BOTTOM_SLACK_PX = 4;

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

/** The rows to render for a scroll position, overscan rows added on both sides. */
export function computeWindow(input: WindowInput): ListWindow {
  const count = Math.max(0, Math.floor(finiteOr(input.count, 0)));
  const rowHeight = Math.max(1, finiteOr(input.rowHeight, 1));
  const height = Math.max(0, finiteOr(input.height, 0));
  const overscan = Math.max(0, Math.floor(finiteOr(input.overscan, 0)));
  const totalHeight = count * rowHeight;
  if (count === 0) return { start: 0, end: 0, offsetTop: 0, totalHeight: 0 };

  // The browser clamps scrollTop, but a shrinking list can leave a stale, larger value.
  const maxScroll = Math.max(0, totalHeight - height);
  const scrollTop = Math.min(Math.max(0, finiteOr(input.scrollTop, 0)), maxScroll);

  const firstVisible = Math.min(count - 1, Math.floor(scrollTop / rowHeight));
  const lastVisible = Math.min(count, Math.ceil((scrollTop + height) / rowHeight));
  const start = Math.max(0, firstVisible - overscan);
  const end = Math.min(count, Math.max(lastVisible, firstVisible + 1) + overscan);
  return { start, end, offsetTop: start * rowHeight, totalHeight };
}

/** Whether a scroll position is at (or within a few px of) the bottom. */
export function isAtBottom(scrollTop: number, clientHeight: number, scrollHeight: number): boolean {
  return scrollHeight - scrollTop - clientHeight <= BOTTOM_SLACK_PX;
}
