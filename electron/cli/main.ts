/**
 * The `pipescope` command line: argument parsing and dispatch to subcommands.
 * Usage errors print one line and exit 2 (DESIGN.md `probe` exit status); never a stack trace.
 */

import { Command, CommanderError, Option } from 'commander';
import { HOST_PROFILE_IDS, type HostProfileId } from '../../shared/host-profiles.js';
import {
  OVERSIZE_POLICIES,
  PROBE_TIMEOUT_MS,
  READER_MODES,
  SESSION_DEFAULTS,
} from '../../shared/session-options.js';
import { runWebCommand, type WebCommandOptions } from '../web/run.js';
import { intArg, parseCallArgs, UsageError } from './args.js';
import { registerAttachCommand } from './attach.js';
import { registerCheckCommand } from './check/command.js';
import {
  DemoError,
  demoListJson,
  demoProbeOptions,
  type ExplicitProbeFlags,
  formatDemoList,
  parseDemoArgs,
} from './demo.js';
import { registerHostsCommand } from './hosts.js';
import { type ProbeOptions, runProbe } from './probe.js';
import { formatReportText } from './report-text.js';
import { registerTapConfigCommands } from './tap-config-commands.js';
import { probeTrace, registerTraceCommands } from './trace-commands.js';

export { parseCallArgs };

interface ProbeFlags {
  call?: string;
  args?: string;
  cancelAfterMs?: number;
  cancelAfterBytes?: number;
  maxFrameBytes?: number;
  onOversize?: 'discard' | 'terminate';
  host?: HostProfileId;
  resultBudgetBytes?: number;
  timeoutMs: number;
  reader: 'drain' | 'paused' | 'naive';
  consumerDelayMs: number;
  trace?: string;
  json?: boolean;
  demo?: string;
  demoArg: string[];
  /** commander's `--no-process-evidence`: false when given. */
  processEvidence: boolean;
  /** commander's `--no-redact`: false when given. */
  redact: boolean;
}

async function probeCommand(argv: string[], flags: ProbeFlags, cmd: Command): Promise<number> {
  const given = (name: string): boolean => cmd.getOptionValueSource(name) === 'cli';
  // What acts on the call (DESIGN.md: --reader and --consumer-delay-ms from the call on) means
  // nothing without one: say so rather than drop it.
  if (!flags.call && !flags.demo) {
    const needsCall = [
      ['args', '--args'],
      ['cancelAfterMs', '--cancel-after-ms'],
      ['cancelAfterBytes', '--cancel-after-bytes'],
      ['reader', '--reader'],
      ['consumerDelayMs', '--consumer-delay-ms'],
    ].find(([name]) => given(name));
    if (needsCall) throw new UsageError(`${needsCall[1]} needs --call`);
  }
  const explicit: ExplicitProbeFlags = {
    call: flags.call,
    callArgs: flags.args === undefined ? undefined : parseCallArgs(flags.args),
    cancelAfterMs: flags.cancelAfterMs,
    cancelAfterBytes: flags.cancelAfterBytes,
    maxFrameBytes: flags.maxFrameBytes,
    ...(given('onOversize') ? { onOversize: flags.onOversize } : {}),
    ...(flags.host ? { hostProfile: flags.host } : {}),
    ...(flags.resultBudgetBytes ? { resultBudgetBytes: flags.resultBudgetBytes } : {}),
    ...(given('timeoutMs') ? { timeoutMs: flags.timeoutMs } : {}),
    ...(given('reader') ? { reader: flags.reader } : {}),
    ...(given('consumerDelayMs') ? { consumerDelayMs: flags.consumerDelayMs } : {}),
  };
  let options: ProbeOptions;
  if (flags.demo) {
    if (argv.length > 0)
      throw new UsageError('give either --demo <id> or a command after --, not both');
    options = demoProbeOptions(flags.demo, parseDemoArgs(flags.demoArg), explicit);
  } else {
    if (argv.length === 0)
      throw new UsageError('probe needs a server command after `--` (or --demo <id>)');
    if (flags.demoArg.length) throw new UsageError('--demo-arg needs --demo');
    options = {
      command: argv[0],
      args: argv.slice(1),
      timeoutMs: flags.timeoutMs,
      reader: flags.reader,
      consumerDelayMs: flags.consumerDelayMs,
      ...explicit,
    };
  }
  if (!flags.processEvidence) options = { ...options, processSampling: false };
  if (!flags.redact && !flags.trace) throw new UsageError('--no-redact needs --trace');
  const trace = flags.trace ? probeTrace(flags.trace, flags.redact) : null;
  const outcome = await runProbe(trace ? { ...options, onSession: trace.attach } : options);
  await trace?.finish(outcome.startError);
  // A server that could not start: its reason once, as one line on stderr (exit 2, as for any
  // usage error); --json still prints the report on stdout, the text mode has nothing more.
  if (outcome.startError) process.stderr.write(`pipescope: ${outcome.startError}\n`);
  if (flags.json) process.stdout.write(`${JSON.stringify(outcome.report, null, 2)}\n`);
  else if (!outcome.startError) process.stdout.write(formatReportText(outcome));
  return outcome.exitCode;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function buildProgram(): Command {
  const program = new Command('pipescope')
    .description(
      'Inspect MCP servers that speak JSON-RPC over stdio: watch the pipe, not just the messages.',
    )
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  program
    .command('probe')
    .description(
      'run a server headless: initialize, tools/list, optional tools/call, cancel, recovery probe, stop',
    )
    .usage('[options] -- <command> [args...]')
    .argument('[command...]', 'the server command and its arguments (after --)')
    .option('--call <tool>', 'call this tool after tools/list')
    .option(
      '--args <json|@file>',
      'arguments of the tool call (a JSON object, or @file holding one)',
    )
    .option(
      '--cancel-after-ms <n>',
      'send notifications/cancelled n ms after the call',
      intArg('--cancel-after-ms'),
    )
    .option(
      '--cancel-after-bytes <n>',
      'cancel once n stdout bytes arrived after the call',
      intArg('--cancel-after-bytes'),
    )
    .option(
      '--max-frame-bytes <n>',
      `transport limit on one message (default ${SESSION_DEFAULTS.maxFrameBytes})`,
      intArg('--max-frame-bytes', 1),
    )
    .addOption(
      new Option(
        '--on-oversize <policy>',
        `a frame over the limit (default ${SESSION_DEFAULTS.onOversize})`,
      ).choices(OVERSIZE_POLICIES),
    )
    .addOption(
      new Option('--host <profile>', "apply a host's known limits (see `pipescope hosts`)").choices(
        HOST_PROFILE_IDS,
      ),
    )
    .option(
      '--result-budget-bytes <n>',
      `warn on a result larger than this (default ${SESSION_DEFAULTS.resultBudgetBytes})`,
      intArg('--result-budget-bytes', 1),
    )
    .option(
      '--timeout-ms <n>',
      'the whole probe ends inside this (plus the stop ladder)',
      intArg('--timeout-ms'),
      PROBE_TIMEOUT_MS,
    )
    .addOption(
      new Option('--reader <mode>', 'reader mode from the call on')
        .choices(READER_MODES)
        .default(SESSION_DEFAULTS.readerMode),
    )
    .option(
      '--consumer-delay-ms <n>',
      'simulate a slow consumer: ms per message',
      intArg('--consumer-delay-ms'),
      0,
    )
    .option('--trace <file>', 'record a trace (JSON Lines, redacted)')
    .option(
      '--no-redact',
      'with --trace: record exactly, secrets included (a local trace that must replay exactly; unsafe to share)',
    )
    .option('--json', 'print exactly one JSON report on stdout')
    .option(
      '--demo <id>',
      'run a bundled demo server with its catalog recipe (see `pipescope demo list`)',
    )
    .option('--demo-arg <name=value>', 'a knob of the demo server (repeatable)', collect, [])
    .option(
      '--no-process-evidence',
      "do not sample the server's process tree (findings from the pipe alone)",
    )
    .action(async (argv: string[], flags: ProbeFlags, cmd: Command) => {
      process.exitCode = await probeCommand(argv, flags, cmd);
    });

  registerCheckCommand(program);

  const demo = program.command('demo').description('the catalog of misbehaving demo servers');
  demo
    .command('list')
    .description('list the demo servers: what each shows, its knobs and the steps to show it')
    .argument('[ids...]', 'only these demos')
    .option('--json', 'print the catalog as JSON (steps, knobs, lesson, expectations)')
    .action((ids: string[], flags: { json?: boolean }) => {
      process.stdout.write(
        flags.json ? `${JSON.stringify(demoListJson(ids), null, 2)}\n` : formatDemoList(ids),
      );
    });

  registerHostsCommand(program);

  program
    .command('web')
    .description('browser mode: serve the app on 127.0.0.1 with a per-launch token')
    .option('--port <n>', 'port to listen on (0 = any free port)', intArg('--port'), 0)
    .option('--no-open', 'do not open a browser')
    .option('--host <addr>', 'interface to bind (not loopback: needs --allow-remote)')
    .option('--allow-remote', 'allow a non-loopback --host (other machines can connect)')
    .action(async (flags: WebCommandOptions) => {
      process.exitCode = await runWebCommand(flags);
    });

  registerTraceCommands(program);
  registerAttachCommand(program);

  // `tap -- <command>` itself is parsed by electron/tap/main.ts (bin/pipescope.js goes there
  // before commander loads); only its help is here, so `tap --help` shows the relay's options.
  const tap = program
    .command('tap')
    .usage('[relay options] -- <command> [args...]  |  install|uninstall --config <file>')
    .description("relay a host's server through Pipescope (see tap install)")
    .addHelpText(
      'after',
      `
Relay options (before --):
  --name <name>        the server's name, shown in the app and in trace names
  --host <label>       the host's name, shown in the app ("Claude Desktop → filesystem")
  --trace <file>       record everything to a trace (redacted; relative to the traces folder)
  --no-redact          with --trace: keep every byte, secrets included
  --no-publish         do not show this session in a running Pipescope

The flight recorder is always on: kill -USR2 <tap pid> writes it out.`,
    );
  registerTapConfigCommands(tap);

  program
    .command('open')
    .description('open a trace read-only in the app (browser mode), with its timeline scrubber')
    .argument('<file>', 'a trace file')
    .option('--port <n>', 'port to listen on (0 = any free port)', intArg('--port'), 0)
    .option('--no-open', 'do not open a browser')
    .action(async (file: string, flags: { port: number; open: boolean }) => {
      process.exitCode = await runWebCommand({ ...flags, openTrace: file });
    });

  program
    .command('start')
    .description(
      'start the desktop app on the demo catalog; browser mode where Electron cannot run ' +
        '([--electron | --no-electron] [--port <n>] [--no-open])',
    )
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_flags: unknown, cmd: Command) => {
      // The launcher parses its own flags (shared with `npm start`).
      const { runStart } = await import('../main/launcher.js');
      process.exitCode = await runStart(cmd.args);
    });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version exit 0; commander already printed usage errors
      return e.exitCode === 0 ? 0 : 2;
    }
    if (e instanceof UsageError || e instanceof DemoError) {
      process.stderr.write(`pipescope: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`pipescope: internal error: ${(e as Error).message}\n`);
    return 2;
  }
}
