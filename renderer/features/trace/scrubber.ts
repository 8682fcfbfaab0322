/**
 * Scrubber math for a trace view, pure: slider value ↔ time, marker positions, playback steps,
 * and the seek coalescer that keeps at most one `trace:seek` in flight while the user drags
 * (the latest position wins; the ones in between are skipped, never queued).
 */

/** Playback speeds offered (recorded time per wall-clock time). */
export const PLAY_SPEEDS = ['1×', '10×'] as const;
export type PlaySpeed = (typeof PLAY_SPEEDS)[number];

export function speedFactor(speed: PlaySpeed): number {
  return speed === '10×' ? 10 : 1;
}

export function clampT(t: number, durationMs: number): number {
  if (!Number.isFinite(t)) return 0;
  return Math.min(Math.max(0, t), Math.max(0, durationMs));
}

/** The slider's step: whole ms, coarser for long traces (at most ~10 000 steps). */
export function sliderStep(durationMs: number): number {
  return Math.max(1, Math.ceil(durationMs / 10_000));
}

/**
 * A slider value as a moment: within the last step of the end it is the end (a range input
 * snaps to its steps, so its last position may fall short of a duration that is no multiple).
 */
export function sliderToT(value: number, durationMs: number): number {
  const t = clampT(value, durationMs);
  return t > durationMs - sliderStep(durationMs) ? durationMs : t;
}

/** Where a moment sits on the track, in percent. */
export function percentAt(t: number, durationMs: number): number {
  if (durationMs <= 0) return 100;
  return (clampT(t, durationMs) / durationMs) * 100;
}

/**
 * One playback tick: the next moment after `wallMs` of real time at `speed`, and whether the
 * end was reached (playback stops there).
 */
export function playStep(
  t: number,
  wallMs: number,
  speed: PlaySpeed,
  durationMs: number,
): { t: number; ended: boolean } {
  const next = clampT(t + Math.max(0, wallMs) * speedFactor(speed), durationMs);
  return { t: next, ended: next >= durationMs };
}

/** "12.345 s" / "850 ms" / "2 min 05 s" for the scrubber's time label. */
export function formatTraceTime(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${min} min ${String(s).padStart(2, '0')} s`;
}

/**
 * Runs `seek` for the latest requested moment, one at a time: a request while one runs only
 * replaces the pending moment. `settled` resolves once nothing is running or pending.
 */
export class SeekCoalescer {
  private running = false;
  private pending: number | null = null;
  private idle: Array<() => void> = [];

  constructor(private readonly seek: (t: number) => Promise<void>) {}

  request(t: number): void {
    this.pending = t;
    if (!this.running) void this.drain();
  }

  settled(): Promise<void> {
    if (!this.running && this.pending === null) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.pending !== null) {
      const t = this.pending;
      this.pending = null;
      try {
        await this.seek(t);
      } catch {
        // the caller reports its own failures; the next position must still be sought
      }
    }
    this.running = false;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }
}
