/**
 * `pipescope tap install` / `pipescope tap uninstall` (issue 20): wrap or unwrap the stdio
 * servers of a host config in `pipescope tap`. The work is electron/engine/config/tap-install.ts;
 * this module parses the flags, prints one line per server (or one JSON object with `--json`) and
 * sets the exit status: 0 done (also when nothing needed to change), 2 for usage errors (an
 * unreadable or unparsable config, an unknown server, a file that cannot be written).
 */

import { type Command, Option } from 'commander';
import { CONFIG_FORMATS, type ConfigFormat } from '../../shared/host-api.js';
import {
  type TapChange,
  TapConfigError,
  type TapResult,
  tapInstall,
  tapUninstall,
} from '../engine/config/tap-install.js';

interface TapFlags {
  config: string;
  server?: string[];
  format: ConfigFormat;
  json?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Runs an action; a TapConfigError becomes one line on stderr and exit status 2. */
function action(fn: (flags: TapFlags) => Promise<TapResult>): (flags: TapFlags) => Promise<void> {
  return async (flags) => {
    try {
      const result = await fn(flags);
      process.stdout.write(
        flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatTapResult(result),
      );
      process.exitCode = 0;
    } catch (e) {
      if (!(e instanceof TapConfigError)) throw e;
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify({ error: { code: 'usage', message: e.message } }, null, 2)}\n`,
        );
      }
      process.stderr.write(`pipescope: ${e.message}\n`);
      process.exitCode = 2;
    }
  };
}

const WORDS: Record<TapChange['status'], string> = {
  wrapped: 'wrapped',
  'already-tapped': 'already tapped',
  skipped: 'skipped',
  unwrapped: 'unwrapped',
  'left-tapped': 'left tapped',
};

/** The human report: the file, one line per server, the backup, what to do next. */
export function formatTapResult(r: TapResult): string {
  const lines = [`${r.host} config: ${r.config}`];
  const where = new Set(r.servers.map((s) => s.location)).size > 1;
  for (const s of r.servers) {
    const name = where ? `${s.name} (${s.location})` : s.name;
    const note = s.reason
      ? `: ${s.reason}`
      : s.status === 'unwrapped' && s.exact
        ? ' (exactly as before)'
        : '';
    lines.push(`  ${WORDS[s.status].padEnd(14)} ${name}${note}`);
  }
  if (r.servers.length === 0) {
    lines.push(
      r.action === 'install' ? '  no server entries found' : '  no tapped server in this file',
    );
  }
  if (r.changed) {
    lines.push(`Backup of the previous file: ${r.backup}`);
    if (r.manifest) lines.push(`Manifest (what uninstall restores): ${r.manifest}`);
    lines.push(r.restart ?? '');
  } else {
    lines.push('No change: the file was not written.');
  }
  return `${lines.join('\n')}\n`;
}

export function registerTapConfigCommands(tap: Command): void {
  const formatOption = (): Option =>
    new Option(
      '--format <format>',
      "the host's config format (default: from the file's name and shape)",
    )
      .choices(CONFIG_FORMATS)
      .default('auto');

  tap
    .command('install')
    .description(
      "wrap the stdio servers of a host's config in `pipescope tap` (a backup first; never twice)",
    )
    .requiredOption(
      '--config <file>',
      'the host config (Claude Desktop, Cursor, VS Code, Claude Code)',
    )
    .option('--server <name>', 'only this server (repeatable)', collect)
    .addOption(formatOption())
    .option('--json', 'print exactly one JSON result on stdout')
    .action(
      action((flags) =>
        tapInstall({ config: flags.config, servers: flags.server, format: flags.format }),
      ),
    );

  tap
    .command('uninstall')
    .description("unwrap every tapped server of a host's config, restoring the entries exactly")
    .requiredOption('--config <file>', 'the host config')
    .addOption(formatOption())
    .option('--json', 'print exactly one JSON result on stdout')
    .action(action((flags) => tapUninstall({ config: flags.config, format: flags.format })));
}
