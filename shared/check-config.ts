/**
 * `pipescope.check.json`: which server `pipescope check` runs, which tools it calls and with
 * what, and the few budgets a person may change (docs/check.md "Config file"). Validated with
 * zod; every mistake is reported on its own line with where it is (`tools[1].args: …`), never
 * only the first. Pure: the CLI reads the file, this module judges its JSON.
 */
import { z } from 'zod';
import { HOST_PROFILE_IDS } from './host-profiles.js';

/** Default budget of one tool call (ms). */
export const CHECK_CALL_TIMEOUT_MS = 10_000;
/** How long the paused-host case keeps the reader paused (ms). */
export const CHECK_PAUSE_MS = 2000;

const ms = (min: number, max: number) =>
  z
    .number({ error: 'expected a number of milliseconds' })
    .int('expected a whole number of milliseconds')
    .min(min, `at least ${min} ms`)
    .max(max, `at most ${max} ms`);

export const checkToolSchema = z
  .object({
    name: z.string({ error: 'expected the tool name (a string)' }).min(1, 'the tool name is empty'),
    args: z
      .record(z.string(), z.unknown(), { error: 'expected the arguments as a JSON object' })
      .default({}),
    timeoutMs: ms(100, 600_000).optional(),
    /** The tool takes time: the cancellation cases cancel it (else: the slowest, measured). */
    slow: z.boolean({ error: 'expected true or false' }).optional(),
    /** The tool starts a subprocess: cancel-subprocess cancels it (else: seen, measured). */
    subprocess: z.boolean({ error: 'expected true or false' }).optional(),
  })
  .strict();

export const checkConfigSchema = z
  .object({
    /** An editor's schema link: allowed, ignored. */
    $schema: z.string().optional(),
    server: z
      .object({
        command: z.string({ error: 'expected the command (a string)' }).min(1, 'empty command'),
        args: z.array(z.string(), { error: 'expected an array of strings' }).default([]),
        cwd: z.string({ error: 'expected a directory (a string)' }).optional(),
        /** Added to the minimal default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
        env: z
          .record(z.string(), z.string({ error: 'expected a string value' }), {
            error: 'expected an object of NAME: "value"',
          })
          .default({}),
      })
      .strict()
      .optional(),
    /** The tools to call, in order; absent: every tool with no required parameter. */
    tools: z.array(checkToolSchema, { error: 'expected an array of tools' }).optional(),
    /** Budget of one call unless the tool says otherwise. */
    timeoutMs: ms(100, 600_000).optional(),
    /** How long paused-host keeps the reader paused. */
    pauseMs: ms(100, 60_000).optional(),
    /** A tool result larger than this fails result-contract (unless it says it is incomplete). */
    resultBudgetBytes: z
      .number({ error: 'expected a number of bytes' })
      .int('expected a whole number of bytes')
      .min(1, 'at least 1 byte')
      .optional(),
    /** A host profile's limits (`pipescope hosts`). */
    host: z
      .enum(HOST_PROFILE_IDS, { error: `expected one of ${HOST_PROFILE_IDS.join(', ')}` })
      .optional(),
  })
  .strict();

export type CheckToolConfig = z.output<typeof checkToolSchema>;
export type CheckConfig = z.output<typeof checkConfigSchema>;
export type CheckConfigInput = z.input<typeof checkConfigSchema>;

/** Where an issue is: `tools[1].args`, `server.env.TOKEN`, or `(top level)`. */
function where(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(top level)' : out;
}

/** The value at `path` in `value` (undefined where there is none). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * The config or one line per mistake. `unknown keys` name each key (a typo such as `tool` for
 * `name` is the commonest mistake), so each is its own line.
 */
export function parseCheckConfig(
  value: unknown,
): { ok: true; value: CheckConfig } | { ok: false; errors: string[] } {
  const r = checkConfigSchema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const errors: string[] = [];
  for (const issue of r.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        errors.push(`${where([...issue.path, key])}: unknown key (see docs/check.md)`);
      }
      continue;
    }
    const missing = issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined;
    const message =
      issue.path.length === 0 ? 'expected a JSON object' : missing ? 'required' : issue.message;
    errors.push(`${where(issue.path)}: ${message}`);
  }
  return { ok: false, errors };
}
