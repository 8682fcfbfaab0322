/**
 * Launching a demo: the built server's path and the argv that runs it with Node, its knobs
 * checked against the catalog. Host-side only (the CLI and the engine's host); the demo servers
 * never import it, so paths.ts stays out of what runs unpacked in a packaged build.
 */
import { builtPaths } from '../paths.js';
import { DEMO_CATALOG, findDemo } from './catalog.js';

/** Absolute path of the built server (paths.ts knows where dist/ is). */
export function demoServerPath(id: string): string {
  if (!findDemo(id)) throw new Error(`unknown demo server: ${id}`);
  return builtPaths.demoServer(id);
}

/** The argv to run a demo with Node; unknown knobs are rejected, not passed through. */
export function demoCommand(
  id: string,
  knobs: Readonly<Record<string, string>> = {},
): { command: string; args: string[] } {
  const scenario = findDemo(id);
  if (!scenario) {
    throw new Error(
      `unknown demo server: ${id} (known: ${DEMO_CATALOG.map((s) => s.id).join(', ')})`,
    );
  }
  const known = new Set(scenario.knobs.map((k) => k.name));
  const args = [demoServerPath(id)];
  for (const [name, value] of Object.entries(knobs)) {
    if (!known.has(name)) {
      const list = [...known].join(', ') || '(none)';
      throw new Error(`demo ${id} has no knob "${name}" (known: ${list})`);
    }
    args.push(`--${name}=${value}`);
  }
  return { command: process.execPath, args };
}
