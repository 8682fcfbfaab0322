/**
 * Runs a host call from a button: tracks `pending`, keeps the last error as text, and never lets
 * a rejected promise float (STYLE.md: no floating promises).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Result } from '../../shared/result';

export interface AsyncAction<A extends unknown[], T> {
  run(...args: A): Promise<Result<T> | null>;
  pending: boolean;
  error: string | null;
  clearError(): void;
}

export function useAsyncAction<A extends unknown[], T>(
  fn: (...args: A) => Promise<Result<T>>,
): AsyncAction<A, T> {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mounted = useRef(true);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async (...args: A): Promise<Result<T> | null> => {
    setPending(true);
    setError(null);
    try {
      const result = await fnRef.current(...args);
      if (mounted.current && !result.ok) setError(`${result.error.code}: ${result.error.message}`);
      return result;
    } catch (e) {
      if (mounted.current) setError(e instanceof Error ? e.message : String(e));
      return null;
    } finally {
      if (mounted.current) setPending(false);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);
  return { run, pending, error, clearError };
}
