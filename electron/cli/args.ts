/** Argument parsers shared by the CLI's commands: usage errors, never exceptions with stacks. */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/** A mistake in how a command was called: one line on stderr, exit 2 (main.ts). */
export class UsageError extends Error {}

/** `--args` takes JSON text or `@file` holding it; it must be a JSON object. */
export function parseCallArgs(text: string): Record<string, unknown> {
  let raw = text;
  if (text.startsWith('@')) {
    try {
      raw = readFileSync(text.slice(1), 'utf8');
    } catch (e) {
      throw new UsageError(`--args: cannot read ${text.slice(1)}: ${(e as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--args must be a JSON object');
  }
  return value as Record<string, unknown>;
}

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
