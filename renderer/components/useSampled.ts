/**
 * Re-renders with a value at most once per `periodMs`, on a fixed clock: updates land on the
 * slot boundaries `(k + phase) · periodMs` of performance.now(). Components given different
 * phases never redraw in the same task, so three charts at 4 Hz cost three short tasks instead
 * of one long one (the long-task budget is 50 ms per task, not per second). The latest value
 * always lands at the next boundary (a trailing update), so nothing stays stale. A period of 0
 * passes the value through (no timer, no extra render), so a component can sample only while
 * it needs to (a flood) and switch back without ever showing an older value.
 */
import { useEffect, useReducer, useRef } from 'react';

/** Milliseconds from `now` to the next slot boundary (0 < result ≤ periodMs). */
export function msToNextSlot(now: number, periodMs: number, phase: number): number {
  const offset = phase * periodMs;
  const sinceSlot = (((now - offset) % periodMs) + periodMs) % periodMs;
  return periodMs - sinceSlot;
}

export function useSampled<T>(value: T, periodMs: number, phase = 0): T {
  const shown = useRef(value);
  const latest = useRef(value);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  // Pass-through keeps `shown` current, so sampling resumes from the value last on screen.
  if (periodMs <= 0) shown.current = value;

  useEffect(() => {
    latest.current = value;
    // One pending timer at a time: it picks up whatever value is latest when it fires.
    if (periodMs <= 0 || timer.current !== null || Object.is(value, shown.current)) return;
    timer.current = setTimeout(
      () => {
        timer.current = null;
        shown.current = latest.current;
        redraw();
      },
      msToNextSlot(performance.now(), periodMs, phase),
    );
  }, [value, periodMs, phase]);

  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );
  return shown.current;
}
