/**
 * Keeps the previous value while a new one is equal to it. recharts re-registers an axis (a
 * store dispatch and a re-render of the whole chart) whenever an array or object prop is a new
 * reference, so ticks and scales computed per redraw go through this.
 */
import { useRef } from 'react';

export function useStable<T>(value: T, equal: (a: T, b: T) => boolean): T {
  const ref = useRef(value);
  // Idempotent for a given render: the ref only ever moves to an unequal value.
  if (ref.current !== value && !equal(ref.current, value)) ref.current = value;
  return ref.current;
}
