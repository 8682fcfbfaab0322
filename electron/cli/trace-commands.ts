/**
 * Trace subcommands of the CLI (issue 5): `record`, `report`, `replay`, `export`, and the
 * `probe --trace` hook. Each action prints its own one-line errors and sets the exit status
 * (0 / 1 like probe, 2 for usage errors, unreadable traces and servers that cannot start).
 */

import { writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { type Disposable, DisposableStore, listen } from '../../shared/lifecycle.js';
import type { ReaderMode } from '../../shared/session-options.js';
import { DEFAULT_RECORDING_BUDGET_BYTES } from '../../shared/trace-format.js';
import { buildProbeReport, exitStatusFor } from '../engine/session/build-report.js';
import { initialize, listTools, McpFlowError } from '../engine/session/mcp-client.js';
import { Session } from '../engine/session/session.js';
import { SessionError } from '../engine/session/types.js';
import { describeWriteError } from '../engine/trace/errors.js';
import { toHtml, toMarkdown } from '../engine/trace/export/doc.js';
import { toChromeTrace } from '../engine/trace/export/perfetto.js';
import { TraceReadError, TraceReader } from '../engine/trace/reader.js';
import { TraceRecorder } from '../engine/trace/recorder.js';
import { formatReplay, replayTrace } from '../engine/trace/replay-diff.js';
import { pollutionFromTrace, summarizeTrace } from '../engine/trace/summary.js';
import { intArg } from './args.js';
import type { ProbeOutcome } from './probe.js';
import { formatReportText } from './report-text.js';

class TraceUsageError extends Error {}

function errorLine(message: string): void {
  process.stderr.write(`pipescope: ${message}\n`);
}

/** Runs an action; its thrown usage and trace errors become one line and exit status 2. */
function action<A extends unknown[]>(fn: (...a: A) => Promise<number>): (...a: A) => Promise<void> {
  return async (...a) => {
    try {
      process.exitCode = await fn(...a);
    } catch (e) {
      if (!(e instanceof TraceUsageError || e instanceof TraceReadError)) throw e;
      errorLine(e.message);
      process.exitCode = 2;
    }
  };
}

/** `probe --trace <file>`: attach a recorder to the probe's session, finish it after. */
export function probeTrace(
  path: string,
  redact = true,
): {
  attach(session: Session): void;
  finish(startError: string | null): Promise<void>;
} {
  let recorder: TraceRecorder | null = null;
  return {
    attach: (session) => {
      recorder = TraceRecorder.start(session, { path, redact, onError: errorLine });
      if (!redact) errorLine(`recording ${path} WITHOUT redaction: secrets stay in the file`);
    },
    finish: async (startError) => {
      await recorder?.finish({ startError });
    },
  };
}

function outcomeOf(
  report: ProbeOutcome['report'],
  extra: Partial<ProbeOutcome> & Pick<ProbeOutcome, 'steps'>,
): ProbeOutcome {
  const startError = extra.startError ?? null;
  return {
    report,
    exitCode: startError ? 2 : exitStatusFor(report),
    startError,
    stderrTail: [],
    pollution: [],
    counters: null,
    ...extra,
  };
}

interface RecordFlags {
  trace: string;
  maxFrameBytes?: number;
  onOversize: 'discard' | 'terminate';
  timeoutMs: number;
  reader: ReaderMode;
  consumerDelayMs: number;
  budgetBytes: number;
  redact: boolean;
  json?: boolean;
}

async function recordCommand(argv: string[], flags: RecordFlags): Promise<number> {
  if (argv.length === 0) throw new TraceUsageError('record needs a server command after `--`');
  const session = new Session({
    command: argv[0],
    args: argv.slice(1),
    ...(flags.maxFrameBytes === undefined ? {} : { maxFrameBytes: flags.maxFrameBytes }),
    onOversize: flags.onOversize,
  });
  const recorder = TraceRecorder.start(session, {
    path: flags.trace,
    budgetBytes: flags.budgetBytes,
    redact: flags.redact,
    onError: errorLine,
  });
  const steps: string[] = [];
  let startError: string | null = null;
  const stopSignal = waitForStop(session);
  try {
    await session.whenStarted();
    steps.push(`spawned pid ${session.pid}`);
    if (!recorder.error) errorLine(`recording ${flags.trace}; Ctrl-C (or SIGTERM) stops`);
    // The handshake runs beside the wait: Ctrl-C during a slow initialize still stops at once.
    const handshake = recordHandshake(session, flags, steps);
    steps.push(`stopped: ${await stopSignal.wait}`);
    await session.stop();
    await handshake;
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    startError = e.message;
  } finally {
    stopSignal.dispose();
    await session.stop();
    await recorder.finish({ startError });
  }
  const outcome = outcomeOf(buildProbeReport(session), {
    steps,
    startError,
    stderrTail: session.stderr.tailLines(8),
    pollution: session.pollution,
    counters: session.counters(),
  });
  printReport(outcome, flags.json);
  return outcome.exitCode;
}

async function recordHandshake(
  session: Session,
  flags: RecordFlags,
  steps: string[],
): Promise<void> {
  try {
    const init = await initialize(session, flags.timeoutMs);
    steps.push(`initialized: ${init.serverInfo.name} ${init.serverInfo.version}`);
    const tools = await listTools(session, flags.timeoutMs);
    steps.push(`tools/list: ${tools.length} tool(s)`);
  } catch (e) {
    if (!(e instanceof McpFlowError)) throw e;
    steps.push(`handshake: ${e.message}${session.state === 'running' ? ' (still recording)' : ''}`);
    return;
  }
  if (flags.reader !== 'drain') session.setReaderMode(flags.reader);
  if (flags.consumerDelayMs > 0) session.setConsumerDelay(flags.consumerDelayMs);
}

/** Resolves on SIGINT / SIGTERM or when the server exits; a second Ctrl-C exits at once. */
function waitForStop(session: Session): { wait: Promise<string>; dispose(): void } {
  let done: (why: string) => void = () => {};
  const wait = new Promise<string>((r) => {
    done = r;
  });
  const store = new DisposableStore();
  const force = (): never => process.exit(130);
  let first: Disposable | null = null;
  let signalled = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = true;
    done(`${sig} received`);
    if (first) store.release(first);
    store.add(listen(process, 'SIGINT', force));
  };
  first = store.add(listen(process, 'SIGINT', onSignal));
  store.add(listen(process, 'SIGTERM', onSignal));
  store.add(listen(session, 'exit', () => done('the server exited')));
  return { wait, dispose: () => store.dispose() };
}

function printReport(outcome: ProbeOutcome, json: boolean | undefined): void {
  if (json) process.stdout.write(`${JSON.stringify(outcome.report, null, 2)}\n`);
  else process.stdout.write(formatReportText(outcome, 'report'));
  // The text report says it already; with --json, stderr says it once.
  if (outcome.startError && json) errorLine(outcome.startError);
}

function skippedWords(reader: TraceReader): string {
  return `${reader.skippedLines} unreadable line(s) skipped (the trace is cut or damaged)`;
}

/** One line on stderr when lines of the trace could not be used (stdout stays the output). */
function noteSkipped(reader: TraceReader): void {
  if (reader.skippedLines > 0) errorLine(skippedWords(reader));
}

async function reportCommand(file: string, flags: { json?: boolean }): Promise<number> {
  const reader = await TraceReader.open(file);
  try {
    const sum = await summarizeTrace(reader);
    if (sum.reconstructed) {
      errorLine(
        `${file} has no end record (the session did not stop cleanly): report rebuilt from ` +
          `its events up to t=${Math.round(sum.durationMs)} ms`,
      );
    }
    const steps = [
      `trace ${file}, recorded ${new Date(sum.header.startedAt).toISOString()}`,
      `${sum.frames.in} frame(s) in, ${sum.frames.out} out; ${sum.frames.truncated} without text (recording budget)`,
    ];
    if (sum.reconstructed) steps.push('no end record: report rebuilt from the events');
    const dropped = sum.end?.recording.droppedEvents ?? 0;
    if (dropped) steps.push(`${dropped} event(s) dropped while recording (the disk fell behind)`);
    const pollution = sum.report.findings.some((f) => f.code === 'stdout-pollution')
      ? await pollutionFromTrace(reader)
      : [];
    if (reader.skippedLines) steps.push(skippedWords(reader));
    noteSkipped(reader);
    const outcome = outcomeOf(sum.report, {
      steps,
      startError: sum.startError,
      stderrTail: sum.stderrTail,
      pollution,
    });
    printReport(outcome, flags.json);
    return outcome.exitCode;
  } finally {
    await reader.close();
  }
}

interface ReplayFlags {
  timing: 'recorded' | 'fast';
  timeoutMs: number;
  json?: boolean;
}

async function replayCommand(file: string, argv: string[], flags: ReplayFlags): Promise<number> {
  if (argv.length === 0) throw new TraceUsageError('replay needs a server command after `--`');
  const reader = await TraceReader.open(file);
  try {
    const result = await replayTrace(reader, {
      command: argv[0],
      args: argv.slice(1),
      timing: flags.timing,
      timeoutMs: flags.timeoutMs,
    });
    if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else process.stdout.write(formatReplay(result));
    noteSkipped(reader);
    if (result.startError) {
      errorLine(result.startError);
      return 2;
    }
    return result.differences > 0 ? 1 : 0;
  } finally {
    await reader.close();
  }
}

async function exportCommand(
  file: string,
  flags: { format: 'perfetto' | 'html' | 'md'; output?: string },
): Promise<number> {
  const reader = await TraceReader.open(file);
  let text: string;
  try {
    const sum = await summarizeTrace(reader);
    if (flags.format === 'perfetto') text = `${JSON.stringify(toChromeTrace(sum))}\n`;
    else text = flags.format === 'html' ? toHtml(sum) : toMarkdown(sum);
    noteSkipped(reader);
  } finally {
    await reader.close();
  }
  if (!flags.output || flags.output === '-') {
    process.stdout.write(text);
    return 0;
  }
  try {
    writeFileSync(flags.output, text);
  } catch (e) {
    throw new TraceUsageError(`cannot write ${flags.output}: ${describeWriteError(e)}`);
  }
  errorLine(`wrote ${flags.output} (${Buffer.byteLength(text)} bytes)`);
  return 0;
}

export function registerTraceCommands(program: Command): void {
  program
    .command('record')
    .description('run a server with the engine and record a trace until Ctrl-C or the server exits')
    .usage('--trace <file> [options] -- <command> [args...]')
    .argument('[command...]', 'the server command and its arguments (after --)')
    .requiredOption('--trace <file>', 'the trace file to write (JSON Lines)')
    .option(
      '--max-frame-bytes <n>',
      'transport limit on one message',
      intArg('--max-frame-bytes', 1),
    )
    .addOption(
      new Option('--on-oversize <policy>', 'oversize frames')
        .choices(['discard', 'terminate'])
        .default('discard'),
    )
    .option('--timeout-ms <n>', 'bound on each handshake step', intArg('--timeout-ms'), 10_000)
    .addOption(
      new Option('--reader <mode>', 'reader mode after the handshake')
        .choices(['drain', 'paused', 'naive'])
        .default('drain'),
    )
    .option('--consumer-delay-ms <n>', 'ms per message', intArg('--consumer-delay-ms'), 0)
    .option(
      '--budget-bytes <n>',
      'trace bytes up to which frame text is kept',
      intArg('--budget-bytes'),
      DEFAULT_RECORDING_BUDGET_BYTES,
    )
    .option('--no-redact', 'keep env values, tokens and Authorization values (unsafe to share)')
    .option('--json', 'print exactly one JSON report on stdout')
    .action(action(recordCommand));

  program
    .command('report')
    .description('print the probe report of a trace (rebuilt from its events if it has no end)')
    .argument('<file>', 'a trace file')
    .option('--json', 'print exactly one JSON report on stdout')
    .action(action(reportCommand));

  program
    .command('replay')
    .description('re-send a trace’s client messages to a server and report what changed')
    .usage('<file> [options] -- <command> [args...]')
    .argument('<file>', 'a trace file')
    .argument('[command...]', 'the server command and its arguments (after --)')
    .addOption(
      new Option('--timing <timing>', 'recorded offsets or back to back')
        .choices(['recorded', 'fast'])
        .default('recorded'),
    )
    .option('--timeout-ms <n>', 'longest wait for one response', intArg('--timeout-ms'), 10_000)
    .option('--json', 'print exactly one JSON result on stdout')
    .action(action(replayCommand));

  program
    .command('export')
    .description('export a trace: Perfetto (Chrome trace-event JSON), HTML or Markdown report')
    .argument('<file>', 'a trace file')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['perfetto', 'html', 'md'])
        .makeOptionMandatory(),
    )
    .option('-o, --output <file>', 'write here instead of stdout')
    .action(action(exportCommand));
}
