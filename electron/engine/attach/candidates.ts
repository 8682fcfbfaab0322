/**
 * Which running processes are likely MCP servers some host started, for `attach --list` and
 * the start screen's "Attach to a running server" (`attach:list`): a process whose stdin and
 * stdout are pipes or sockets (a server's stdio; a shell in a terminal has a tty) and whose
 * parent is a known host (Claude Desktop, Claude Code, Cursor, VS Code), or whose command line
 * runs a server of a host's config (discovery.ts). Linux first (it reads /proc); elsewhere the list
 * is empty. Each says why it is listed.
 */
import { basename } from 'node:path';
import { discoverConfigs } from '../config/discovery.js';
import { type AttachProc, attachProc } from './proc.js';
import type { Candidate } from './types.js';

/** A server of a host's config: what it runs, and where it is configured. */
export interface ConfiguredServer {
  name: string;
  command: string;
  args: readonly string[];
  source: string;
}

export interface CandidateOptions {
  proc?: AttachProc;
  /** The configured servers to match (default: the host configs discovery finds). */
  configs?: readonly ConfiguredServer[];
}

/** Interpreters whose first argument names the program that runs. */
const INTERPRETERS = /^(node|nodejs|bun|deno|electron|python[\d.]*|uv|uvx|npx)$/;

/** The host an argv belongs to (by the program's name), or null. */
export function knownHost(argv: readonly string[]): string | null {
  const [exe = '', script = ''] = argv;
  const joined = argv.join(' ');
  if (/\/Claude\.app\/|\/claude-desktop\//i.test(joined)) return 'Claude Desktop';
  if (/\.vscode-server\//.test(joined)) return 'VS Code';
  const names = [basename(exe)];
  if (INTERPRETERS.test(basename(exe))) names.push(basename(script));
  for (const name of names) {
    if (name === 'Claude' || /^claude-desktop$/i.test(name)) return 'Claude Desktop';
    if (/^claude$/i.test(name)) return 'Claude Code';
    if (/^cursor([-_.].*)?$/i.test(name)) return 'Cursor';
    if (/^(code|code-insiders|code-oss|codium|Code)$/.test(name)) return 'VS Code';
  }
  return null;
}

/** A command line as /proc gives it, made comparable: a process that set its title (npm does)
 *  has one argument with spaces; `npm exec` is what `npx` becomes. */
function normalised(argv: readonly string[]): string[] {
  const words = argv.length === 1 ? argv[0].split(' ') : [...argv];
  return words[0] === 'npm' && words[1] === 'exec' ? ['npx', ...words.slice(2)] : words;
}

function sameArg(a: string, b: string): boolean {
  return a === b || ((a.includes('/') || b.includes('/')) && basename(a) === basename(b));
}

/** Whether `argv` runs `server`: its program (or the script an interpreter runs) and each of
 *  its arguments but flags, in order. A bare interpreter (`node` alone) names no server. */
export function runsServer(argv: readonly string[], server: ConfiguredServer): boolean {
  const args = normalised(argv);
  const program = basename(server.command);
  const words = server.args.filter((a) => !a.startsWith('-'));
  if (words.length === 0 && INTERPRETERS.test(program)) return false;
  const at = args.slice(0, 2).findIndex((a) => basename(a) === program);
  if (at < 0) return false;
  let k = at + 1;
  for (const word of words) {
    while (k < args.length && !sameArg(args[k], word)) k += 1;
    if (k >= args.length) return false;
    k += 1;
  }
  return true;
}

function stdioLike(target: string | null): boolean {
  return target !== null && /^(pipe|socket):/.test(target);
}

async function discovered(): Promise<ConfiguredServer[]> {
  const found = await discoverConfigs();
  return found.flatMap((d) =>
    (d.result?.servers ?? []).map((s) => ({
      name: s.name,
      command: s.command,
      args: s.args,
      source: d.path,
    })),
  );
}

export async function attachCandidates(o: CandidateOptions = {}): Promise<Candidate[]> {
  const proc = o.proc ?? attachProc();
  const configs = o.configs ?? (await discovered());
  const out: Candidate[] = [];
  for (const pid of proc.allPids()) {
    if (pid === process.pid) continue;
    const argv = proc.argvOf(pid);
    if (!argv || argv.length === 0) continue; // gone, or a kernel thread
    // Electron's own helpers (renderer, GPU, utility) are children of a host too.
    if (argv.some((a) => a.startsWith('--type='))) continue;
    const why: string[] = [];
    const configured = configs.filter((c) => runsServer(argv, c));
    for (const c of configured) why.push(`runs the server "${c.name}" of ${c.source}`);
    const [stdin, stdout] = proc.stdioOf(pid);
    const ppid = proc.parentOf(pid) ?? 0;
    const parentArgv = ppid > 0 ? proc.argvOf(ppid) : null;
    const host = parentArgv ? knownHost(parentArgv) : null;
    if (host && stdioLike(stdin) && stdioLike(stdout)) {
      why.unshift(`its parent ${ppid} is ${host}, and its stdin and stdout are pipes or sockets`);
    }
    if (why.length === 0) continue;
    out.push({
      pid,
      command: proc.commandOf(pid) ?? argv.join(' '),
      ppid,
      parentCommand: ppid > 0 ? (proc.commandOf(ppid) ?? '') : '',
      why,
    });
  }
  return out.sort((a, b) => a.pid - b.pid);
}
