/**
 * `pipescope hosts`: the host profiles `--host` applies (shared/host-profiles.ts), each number
 * with where it comes from and how sure it is (`package`: read from the installed package;
 * `source`: read in the host's code; `documented`; `reported`: from issues, not documented).
 * A limit nobody has found is printed as unknown, never guessed.
 */
import type { Command } from 'commander';
import {
  HOST_PROFILES,
  type HostProfile,
  type Sourced,
  sizeText,
} from '../../shared/host-profiles.js';

function ms(n: number): string {
  if (n >= 3_600_000) return `${(n / 3_600_000).toFixed(1)} h`;
  if (n >= 60_000) return `${(n / 60_000).toFixed(n % 60_000 === 0 ? 0 : 1)} min`;
  return `${(n / 1000).toFixed(0)} s`;
}

function cell<T>(s: Sourced<T> | null, show: (v: T) => string): string {
  return s === null ? 'unknown' : `${show(s.value)} (${s.status})`;
}

function cap(p: HostProfile): string {
  return cell(p.transportCap, (v) =>
    v === null
      ? 'none'
      : `${sizeText(v.bytes)}, then ${v.past === 'terminate' ? 'closes' : 'drops'}`,
  );
}

function timeout(p: HostProfile): string {
  return cell(p.requestTimeout, (v) => (v === null ? 'none' : ms(v)));
}

function result(p: HostProfile): string {
  if (p.resultLimit === null) return 'none known';
  return cell(p.resultLimit, (v) =>
    v.bytes !== undefined ? sizeText(v.bytes) : `${(v.tokens ?? 0).toLocaleString('en-US')} tokens`,
  );
}

/** The table and, under it, every source and note. */
export function formatHosts(): string {
  const head = ['--host', 'host', 'transport cap', 'request timeout', 'result limit'];
  const rows = HOST_PROFILES.map((p) => [p.id, p.name, cap(p), timeout(p), result(p)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ''];
  for (const p of HOST_PROFILES) {
    out.push(`${p.name} (--host ${p.id})`);
    const item = (what: string, s: Sourced<unknown> | null): void => {
      if (s) out.push(`  ${what}: ${s.note}`, `    source (${s.status}): ${s.source}`);
      else out.push(`  ${what}: unknown (no source found)`);
    };
    item('transport cap', p.transportCap);
    item('request timeout', p.requestTimeout);
    if (p.resultLimit) item('result limit', p.resultLimit);
    else out.push('  result limit: none known');
    for (const n of p.notes)
      out.push(`  also: ${n.value} (${n.note})`, `    source (${n.status}): ${n.source}`);
    out.push('');
  }
  out.push(
    "--host applies a profile's transport cap (and what happens past it), request timeout and " +
      'result budget; a flag given explicitly wins.',
  );
  return `${out.join('\n')}\n`;
}

export function registerHostsCommand(program: Command): void {
  program
    .command('hosts')
    .description("the host profiles --host applies: each host's known limits and their sources")
    .option('--json', 'print the profiles as JSON')
    .action((flags: { json?: boolean }) => {
      process.stdout.write(
        flags.json ? `${JSON.stringify(HOST_PROFILES, null, 2)}\n` : formatHosts(),
      );
    });
}
