/**
 * `pipescope check [--junit FILE] [--json] [--config FILE] [--call T [--args J]]... -- <server>`
 * (DESIGN.md "Tap, attach and check", docs/check.md): reads what to run from the flags, the
 * config file (`pipescope.check.json`, found in the working directory when not named) or a
 * demo's catalog recipe, runs the battery and prints its report. Exit 0 when no case failed,
 * 1 when one did, 2 for a usage error (a bad flag or config: every mistake on its own line).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  CHECK_CALL_TIMEOUT_MS,
  CHECK_PAUSE_MS,
  type CheckConfig,
  parseCheckConfig,
} from '../../../shared/check-config.js';
import { HOST_PROFILE_IDS, type HostProfileId } from '../../../shared/host-profiles.js';
import { findDemo } from '../../demo-servers/catalog.js';
import { demoCommand } from '../../demo-servers/launch.js';
import { runCheck } from '../../engine/check/battery.js';
import type { CheckTarget } from '../../engine/check/check-session.js';
import type { PlannedTool } from '../../engine/check/plan.js';
import { intArg, parseCallArgs, UsageError } from '../args.js';
import { formatJunit } from './junit.js';
import { formatCheckText } from './text.js';

export const CONFIG_FILE = 'pipescope.check.json';

interface CheckFlags {
  config?: string;
  timeoutMs?: number;
  host?: HostProfileId;
  resultBudgetBytes?: number;
  json?: boolean;
  junit?: string;
  demo?: string;
}

interface CallPair {
  tool: string;
  args?: string;
}

export function registerCheckCommand(program: Command): void {
  // Commander parses options in the order given: each --args belongs to the --call before it.
  const pairs: CallPair[] = [];
  program
    .command('check')
    .description(
      'a release gate for a server: a fixed battery of hostile-host cases, each passed, failed or skipped (docs/check.md)',
    )
    .usage('[options] -- <command> [args...]')
    .argument('[command...]', 'the server command and its arguments (after --)')
    .option(
      '--call <tool>',
      'call this tool (repeatable; each may be followed by its --args)',
      (v: string) => {
        pairs.push({ tool: v });
        return v;
      },
    )
    .option(
      '--args <json|@file>',
      'arguments of the --call before it (a JSON object, or @file)',
      (v: string) => {
        const last = pairs.at(-1);
        if (!last) throw new InvalidArgumentError('--args must follow the --call it belongs to');
        if (last.args !== undefined)
          throw new InvalidArgumentError(`--call ${last.tool} already has its --args`);
        last.args = v;
        return v;
      },
    )
    .option('--config <file>', `what to run and call (default: ./${CONFIG_FILE} when present)`)
    .option(
      '--timeout-ms <n>',
      `budget of one request: each handshake step, each call (default ${CHECK_CALL_TIMEOUT_MS})`,
      intArg('--timeout-ms', 100),
    )
    .addOption(
      new Option(
        '--host <profile>',
        "judge results against a host's limits (see `pipescope hosts`)",
      ).choices(HOST_PROFILE_IDS),
    )
    .option(
      '--result-budget-bytes <n>',
      'a larger result fails result-contract (default 1 MiB)',
      intArg('--result-budget-bytes', 1),
    )
    .option('--json', 'print exactly one JSON report on stdout')
    .option(
      '--junit <file>',
      'also write the report as JUnit XML (GitHub Actions, GitLab, Jenkins)',
    )
    .option(
      '--demo <id>',
      'check a bundled demo server with its catalog recipe (see `pipescope demo list`)',
    )
    .action(async (argv: string[], flags: CheckFlags) => {
      process.exitCode = await checkCommand(argv, flags, pairs);
    });
}

/** The config file's JSON, judged; every mistake a line of the usage error. */
export function readCheckConfig(file: string): CheckConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--config: cannot read ${file}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  const r = parseCheckConfig(json);
  if (!r.ok)
    throw new UsageError(`${file} has ${r.errors.length} mistake(s):\n  ${r.errors.join('\n  ')}`);
  return r.value;
}

async function checkCommand(argv: string[], flags: CheckFlags, pairs: CallPair[]): Promise<number> {
  const configFile = flags.config ?? (existsSync(CONFIG_FILE) ? CONFIG_FILE : null);
  const config: CheckConfig = configFile ? readCheckConfig(configFile) : {};
  const demo = flags.demo ? findDemo(flags.demo) : null;
  if (flags.demo && !demo)
    throw new UsageError(`unknown demo ${JSON.stringify(flags.demo)}; see \`pipescope demo list\``);
  if (demo && argv.length > 0)
    throw new UsageError('give either --demo <id> or a command after --, not both');
  const timeoutMs =
    flags.timeoutMs ?? config.timeoutMs ?? demo?.check?.timeoutMs ?? CHECK_CALL_TIMEOUT_MS;

  let server: Omit<CheckTarget, 'hostProfile' | 'resultBudgetBytes'>;
  if (argv.length > 0)
    server = {
      command: argv[0],
      args: argv.slice(1),
      env: config.server?.env ?? {},
      cwd: config.server?.cwd,
    };
  else if (config.server) server = { ...config.server };
  else if (demo) {
    server = {
      ...demoCommand(demo.id, demo.check?.knobs ?? {}),
      // Inside Electron, process.execPath is the app: make it behave as Node for the server.
      env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
    };
  } else
    throw new UsageError(
      `check needs a server command after \`--\` (or "server" in ${CONFIG_FILE}, or --demo <id>)`,
    );

  let tools: PlannedTool[] | null = null;
  if (pairs.length > 0)
    tools = pairs.map((p) => ({
      name: p.tool,
      args: p.args === undefined ? {} : parseCallArgs(p.args),
      source: 'cli',
      timeoutMs,
    }));
  else {
    const named = config.tools ?? demo?.check?.tools;
    if (named) {
      const parsed = parseCheckConfig({ tools: named });
      if (!parsed.ok) throw new UsageError(parsed.errors.join('; '));
      tools = (parsed.value.tools ?? []).map((t) => ({
        name: t.name,
        args: t.args,
        source: 'config',
        timeoutMs: t.timeoutMs ?? timeoutMs,
        ...(t.slow !== undefined && { slow: t.slow }),
        ...(t.subprocess !== undefined && { subprocess: t.subprocess }),
      }));
    }
  }
  const hostProfile = flags.host ?? config.host;
  const resultBudgetBytes = flags.resultBudgetBytes ?? config.resultBudgetBytes;
  const report = await runCheck({
    target: {
      ...server,
      ...(hostProfile && { hostProfile }),
      ...(resultBudgetBytes && { resultBudgetBytes }),
    },
    tools,
    callTimeoutMs: timeoutMs,
    pauseMs: config.pauseMs ?? CHECK_PAUSE_MS,
  });
  process.stdout.write(
    flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatCheckText(report),
  );
  if (flags.junit) {
    try {
      writeFileSync(flags.junit, formatJunit(report));
    } catch (e) {
      process.stderr.write(`pipescope: cannot write ${flags.junit}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  return report.exitCode;
}
