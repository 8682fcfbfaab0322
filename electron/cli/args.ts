/** Argument parsers shared by the CLI's commands: usage errors, never exceptions with stacks. */
import { InvalidArgumentError } from 'commander';

/** A whole number ≥ `min` (e.g. `--max-frame-bytes` needs at least 1). */
export function intArg(name: string, min = 0): (v: string) => number {
  return (v) => {
    // Digits only: Number() would also take ' ' (0), '0x10' and '1e3'.
    const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`${name} must be a whole number ≥ ${min}`);
    }
    return n;
  };
}
