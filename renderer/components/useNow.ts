/**
 * The wall clock, re-read every `everyMs` while the component is mounted: for ages ("3 min")
 * that must keep counting when no snapshot arrives (a session whose server is over).
 */
import { useEffect, useState } from 'react';

export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
