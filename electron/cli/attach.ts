/**
 * `pipescope attach <pid> [--json] [--watch-ms N]` and `pipescope attach --list [--json]`
 * (DESIGN.md "Tap, attach and check"): inspect an MCP server some other host started, without
 * restarting it, and list the processes that look like one. The report has the probe's shape
 * plus its `attach` block (electron/engine/attach/types.ts); exit 0 without an error-level
 * finding, 1 with one, 2 for a usage error or a process that cannot be attached to.
 */
import type { Command } from 'commander';
import { FINDING_EXPLANATIONS } from '../../shared/findings.js';
import { AttachError, attach, DEFAULT_WATCH_MS } from '../engine/attach/attach.js';
import { attachCandidates } from '../engine/attach/candidates.js';
import type { AttachReport, AttachStdio, Candidate } from '../engine/attach/types.js';
import { exitStatusFor } from '../engine/session/build-report.js';
import { intArg } from './args.js';

/** The shortest window that can show anything (the sampler's slow cadence is 500 ms). */
const MIN_WATCH_MS = 500;
const MAX_WATCH_MS = 600_000;

interface AttachFlags {
  json?: boolean;
  watchMs: number;
  list?: boolean;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function peerText(s: AttachStdio): string {
  const peer = s.peer ? `${s.peer.pid} ${s.peer.command.slice(0, 50)} (${s.peer.how})` : '-';
  const unread = s.unread
    ? `; unread ${bytes(s.unread.start)} at the start, ${bytes(s.unread.end)} at the end`
    : '';
  return `${peer}${unread}`;
}

export function formatAttachText(r: AttachReport): string {
  const a = r.attach;
  const lines: string[] = [];
  const cmd = [r.server.command, ...r.server.args].join(' ');
  const shown = cmd.length > 120 ? `${cmd.slice(0, 119)}…` : cmd;
  lines.push(`pipescope attach: pid ${r.server.pid} ${shown}`);
  // Sampling a tree takes its own time: the window can run past what was asked.
  lines.push(
    `  watched ${(a.observedMs / 1000).toFixed(1)} s (asked ${(a.watchMs / 1000).toFixed(1)} s), ${r.process.samples} sample(s)`,
  );
  lines.push(`  ${a.summary}`);
  lines.push('');
  lines.push(
    a.host
      ? `Host: pid ${a.host.pid} ${a.host.command.slice(0, 80)}: ${a.host.how}`
      : 'Host: not found (no process /proc can see holds the other end of its stdout or stdin)',
  );
  if (a.parent) lines.push(`Parent: pid ${a.parent.pid} ${a.parent.command.slice(0, 80)}`);
  lines.push('', 'stdio');
  for (const s of a.stdio) {
    lines.push(`  ${s.fd}  ${s.kind.padEnd(7)} ${(s.target ?? '-').padEnd(18)} ${peerText(s)}`);
  }
  if (a.tree.length > 0) {
    lines.push('', 'Process tree (last sample)');
    for (const p of a.tree) {
      const cpu = p.cpuPercent === null ? '' : `, ${Math.round(p.cpuPercent)} % CPU`;
      const wchan = p.wchan ? ` [${p.wchan}]` : '';
      lines.push(
        `  ${'  '.repeat(p.depth)}${p.pid} ${p.state} ${p.command.slice(0, 60)}: ${p.doing}${wchan}${cpu}`,
      );
    }
  }
  lines.push('');
  lines.push(
    `Written over the window: ${a.written.bytes === null ? 'unknown' : bytes(a.written.bytes)} (${a.written.source})`,
  );
  lines.push(
    r.process.available
      ? `Process evidence: ${r.process.samples} sample(s); current syscall ${a.syscallReadable ? 'readable' : 'NOT readable'}`
      : `Process evidence: not available (${r.process.reason ?? 'unknown'})`,
  );
  if (a.note) lines.push(`Note: ${a.note}`);
  lines.push('', r.findings.length ? 'Findings' : 'Findings: none');
  for (const f of r.findings) {
    lines.push(`  [${f.level}] ${f.code}: ${f.message}`);
    lines.push(`      ${FINDING_EXPLANATIONS[f.code]}`);
  }
  return `${lines.join('\n')}\n`;
}

export function formatCandidates(list: readonly Candidate[]): string {
  if (list.length === 0) {
    return 'No running process looks like an MCP server started by a known host (Claude Desktop, Claude Code, Cursor, VS Code) or by a discovered config.\nA server you know the pid of: pipescope attach <pid>\n';
  }
  const lines = ['Running processes that look like MCP servers (pipescope attach <pid>):'];
  for (const c of list) {
    lines.push(`  ${String(c.pid).padStart(7)} ${c.command.slice(0, 90)}`);
    lines.push(`          parent ${c.ppid} ${c.parentCommand.slice(0, 70)}`);
    for (const w of c.why) lines.push(`          - ${w}`);
  }
  return `${lines.join('\n')}\n`;
}

function errorLine(message: string): void {
  process.stderr.write(`pipescope: ${message}\n`);
}

async function attachCommand(pidText: string | undefined, flags: AttachFlags): Promise<number> {
  if (flags.list) {
    if (pidText !== undefined) {
      errorLine('give either a pid or --list, not both');
      return 2;
    }
    const list = await attachCandidates();
    process.stdout.write(
      flags.json ? `${JSON.stringify(list, null, 2)}\n` : formatCandidates(list),
    );
    return 0;
  }
  if (pidText === undefined) {
    errorLine('attach needs the pid of a running server (or --list to find one)');
    return 2;
  }
  if (!/^\d+$/.test(pidText) || !Number.isSafeInteger(Number(pidText)) || Number(pidText) < 1) {
    errorLine(`not a process id: ${pidText}`);
    return 2;
  }
  if (flags.watchMs < MIN_WATCH_MS || flags.watchMs > MAX_WATCH_MS) {
    errorLine(`--watch-ms must be between ${MIN_WATCH_MS} and ${MAX_WATCH_MS}`);
    return 2;
  }
  let report: AttachReport;
  try {
    report = await attach(Number(pidText), { watchMs: flags.watchMs });
  } catch (e) {
    if (!(e instanceof AttachError)) throw e;
    errorLine(e.message);
    return 2;
  }
  process.stdout.write(
    flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatAttachText(report),
  );
  return exitStatusFor(report);
}

export function registerAttachCommand(program: Command): void {
  program
    .command('attach')
    .description(
      'inspect a running MCP server some other host started (its tree, stdio, the host), without restarting it',
    )
    .usage('<pid> [--json] [--watch-ms N] | --list [--json]')
    .argument('[pid]', 'the server process')
    .option('--json', 'print exactly one JSON object on stdout')
    .option(
      '--watch-ms <n>',
      `how long to watch the process (${MIN_WATCH_MS}-${MAX_WATCH_MS} ms)`,
      intArg('--watch-ms'),
      DEFAULT_WATCH_MS,
    )
    .option('--list', 'list running processes that look like MCP servers started by a host')
    .action(async (pid: string | undefined, flags: AttachFlags) => {
      process.exitCode = await attachCommand(pid, flags);
    });
}
