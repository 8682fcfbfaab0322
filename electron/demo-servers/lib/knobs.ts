/**
 * Knob parsing for demo servers: `--name=value` arguments checked against the catalog entry,
 * so the defaults a server runs with are the defaults the catalog documents (one source).
 * An unknown or malformed knob ends the server with exit code 2 and a message on stderr:
 * a typo must not silently run the demo with a default.
 */

import { findDemo } from '../catalog.js';

export interface Knobs {
  /** The raw value (given or default). */
  str(name: string): string;
  /** A non-negative integer knob (sizes in bytes, delays in ms, counts). */
  int(name: string): number;
  bool(name: string): boolean;
}

/** Parses `--k=v` arguments against the allowed names and defaults. Throws on any problem. */
export function parseKnobArgs(
  argv: readonly string[],
  defaults: Readonly<Record<string, string>>,
): Record<string, string> {
  const values: Record<string, string> = { ...defaults };
  for (const arg of argv) {
    const match = /^--([a-z][a-z0-9-]*)=(.*)$/s.exec(arg);
    if (!match) throw new Error(`expected --name=value, got ${JSON.stringify(arg)}`);
    const [, name, value] = match;
    if (!Object.hasOwn(defaults, name)) {
      const known = Object.keys(defaults).join(', ') || '(none)';
      throw new Error(`unknown knob --${name} (known: ${known})`);
    }
    values[name] = value;
  }
  return values;
}

/** Wraps parsed values with typed accessors that reject malformed numbers and booleans. */
export function knobAccessors(values: Readonly<Record<string, string>>): Knobs {
  const str = (name: string): string => {
    const value = values[name];
    if (value === undefined) throw new Error(`knob --${name} is not declared in the catalog`);
    return value;
  };
  return {
    str,
    int(name) {
      const raw = str(name);
      if (!/^\d+$/.test(raw)) throw new Error(`knob --${name} must be an integer, got ${raw}`);
      const value = Number(raw);
      if (!Number.isSafeInteger(value)) throw new Error(`knob --${name} is too large: ${raw}`);
      return value;
    },
    bool(name) {
      const raw = str(name);
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new Error(`knob --${name} must be true or false, got ${raw}`);
    },
  };
}

/** Reads this process's knobs for scenario `id`; exits 2 on a bad argument. */
export function readKnobs(id: string, argv: readonly string[] = process.argv.slice(2)): Knobs {
  const scenario = findDemo(id);
  if (!scenario) throw new Error(`demo scenario ${id} is not in the catalog`);
  const defaults = Object.fromEntries(scenario.knobs.map((k) => [k.name, k.default]));
  try {
    const knobs = knobAccessors(parseKnobArgs(argv, defaults));
    // Validate every typed knob up front so a bad value fails at start, not mid-demo.
    for (const k of scenario.knobs) {
      if (k.unit === 'bytes' || k.unit === 'ms' || k.unit === 'count') knobs.int(k.name);
      if (k.unit === 'boolean') knobs.bool(k.name);
    }
    return knobs;
  } catch (error) {
    process.stderr.write(`[${id}] ${(error as Error).message}\n`);
    process.exit(2);
  }
}
