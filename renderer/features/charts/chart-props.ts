/**
 * Props shared by the live charts, as module constants: recharts compares most axis props by
 * reference, and a new object per render re-registers the axis (a dispatch and a full redraw).
 */
export const AXIS_TICK = { fontSize: 10 } as const;
export const AXIS_STROKE = 'var(--ps-axis)';
export const GRID_STROKE = 'var(--ps-grid)';
export const MARGIN_RIGHT_PAD = { top: 6, right: 8, bottom: 0, left: 0 } as const;
export const MARGIN_FLUSH = { top: 6, right: 0, bottom: 0, left: 0 } as const;
/** y-axis ticks per chart (and so horizontal grid lines): a handful is enough at 132 px. */
export const Y_TICKS = 4;

/** The time window every live chart is drawn over (LiveCharts picks it once for all three). */
export interface TimeWindow {
  domain: [number, number];
  xTicks: number[];
}
