/**
 * The demo catalog on the command line: `pipescope demo list` and the recipe behind
 * `pipescope probe --demo <id>` (the catalog's probe settings, overridden by explicit flags).
 */

import type { DemoScenario } from '../../shared/demo-catalog.js';
import { PROBE_TIMEOUT_MS } from '../../shared/session-options.js';
import { DEMO_CATALOG, findDemo } from '../demo-servers/catalog.js';
import { demoCommand } from '../demo-servers/launch.js';
import type { ProbeOptions } from './probe.js';

export class DemoError extends Error {}

/** `k=v` pairs from `--demo-arg`. */
export function parseDemoArgs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new DemoError(`--demo-arg takes name=value, got ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** Flags the user typed explicitly (they win over the catalog's recipe). */
export type ExplicitProbeFlags = Partial<Omit<ProbeOptions, 'command' | 'args'>>;

/** The probe options that demonstrate a scenario: catalog recipe, then explicit flags. */
export function demoProbeOptions(
  id: string,
  knobs: Record<string, string>,
  explicit: ExplicitProbeFlags,
): ProbeOptions {
  const scenario = findDemo(id);
  if (!scenario) {
    throw new DemoError(`unknown demo ${JSON.stringify(id)}; see \`pipescope demo list\``);
  }
  const recipe = scenario.probe;
  let command: { command: string; args: string[] };
  try {
    command = demoCommand(id, { ...recipe.knobs, ...knobs });
  } catch (e) {
    throw new DemoError((e as Error).message);
  }
  let callArgs = explicit.callArgs ?? recipe.args;
  if (explicit.callArgs === undefined && recipe.argsPadBytes) {
    callArgs = { ...callArgs, pad: 'x'.repeat(recipe.argsPadBytes) };
  }
  return {
    ...command,
    // Inside Electron, process.execPath is the app: make it behave as Node for the server.
    env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
    call: explicit.call ?? recipe.call,
    callArgs,
    cancelAfterMs: explicit.cancelAfterMs ?? recipe.cancelAfterMs,
    cancelAfterBytes: explicit.cancelAfterBytes,
    maxFrameBytes: explicit.maxFrameBytes ?? recipe.maxFrameBytes,
    onOversize: explicit.onOversize ?? recipe.onOversize,
    timeoutMs: explicit.timeoutMs ?? recipe.timeoutMs ?? PROBE_TIMEOUT_MS,
    reader: explicit.reader ?? recipe.reader ?? 'drain',
    consumerDelayMs: explicit.consumerDelayMs ?? recipe.consumerDelayMs ?? 0,
  };
}

/** The catalog, or the demos named (an unknown id is an error naming the known ones). */
export function demoListJson(ids: readonly string[] = []): readonly DemoScenario[] {
  if (ids.length === 0) return DEMO_CATALOG;
  return ids.map((id) => {
    const s = findDemo(id);
    if (!s) {
      const known = DEMO_CATALOG.map((d) => d.id).join(', ');
      throw new DemoError(`unknown demo ${JSON.stringify(id)}; the demos are: ${known}`);
    }
    return s;
  });
}

/** `text` wrapped at `width` columns, each line after `indent`. */
function wrap(text: string, indent: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

/** Each demo: what it shows, what a probe must find, its knobs, and the steps to show it by
 *  hand in the app (the same words as its card on the start screen). */
export function formatDemoList(ids: readonly string[] = []): string {
  const demos = demoListJson(ids);
  const width = Math.max(...demos.map((s) => s.id.length));
  const pad = ' '.repeat(width + 4);
  const lines = [
    'Demo servers (pipescope probe --demo <id> [--demo-arg name=value ...], pipescope check --demo <id>)',
    '',
  ];
  for (const s of demos) {
    const expect = s.expected.findings.length ? s.expected.findings.join(', ') : 'no findings';
    lines.push(`  ${s.id.padEnd(width)}  ${s.title}`);
    lines.push(...wrap(s.lesson, pad));
    lines.push(`${pad}expect: ${expect}`);
    if (s.check) {
      const fails = s.check.failed.length ? s.check.failed.join(', ') : 'nothing';
      lines.push(`${pad}check fails: ${fails}`);
    }
    if (s.knobs.length) {
      const knobs = s.knobs.map((k) => `${k.name}=${k.default}`).join(' ');
      lines.push(...wrap(`knobs: ${knobs}`, pad));
    }
    lines.push(`${pad}steps:`);
    s.steps.forEach((step, i) => {
      const [first, ...rest] = wrap(step, `${pad}      `);
      lines.push(`${pad}  ${String(i + 1).padStart(2)}. ${first.trimStart()}`, ...rest);
    });
    lines.push('');
  }
  return `${lines.join('\n')}`;
}
