/**
 * The command line of a tapped server entry (`pipescope tap install`, tap-config.ts): how an
 * entry's `command` and `args` are wrapped, how a wrapped one is recognised (so that it is never
 * wrapped twice), how the original is read back out of it, and how an argv is written as a JSON
 * array in the layout of the array it replaces. Pure: no Node, no DOM.
 */

/** Where the tap runs from: the Node binary and the `pipescope` bin script, both absolute. */
export interface TapLauncher {
  node: string;
  bin: string;
  /**
   * The native relay, absolute, where it is built (Linux): the entry starts it, and it starts
   * Node (`pipescope-relay node <node> <bin> tap ...`) with the host's NODE_EXTRA_CA_CERTS kept
   * from the tap's own start-up (native/relay.c exec_node): ~45 ms less before the server starts.
   */
  front?: string;
}

export interface Argv {
  command: string;
  args: string[];
}

/**
 * The wrapped entry: `<node> <bin> tap --name <name> --host <host> -- <command> <args...>`, or
 * with a front, `<front> node <node> <bin> tap ...`. The tap reads `--name` and `--host` to
 * label the live session; everything after `--` is the server's own argv, untouched.
 */
export function wrapArgv(launcher: TapLauncher, name: string, host: string, original: Argv): Argv {
  const start = launcher.front ? ['node', launcher.node] : [];
  return {
    command: launcher.front ?? launcher.node,
    args: [
      ...start,
      launcher.bin,
      'tap',
      '--name',
      name,
      '--host',
      host,
      '--',
      original.command,
      ...original.args,
    ],
  };
}

/** `pipescope`, `pipescope.js`, `pipescope.cmd`, `pipescope@1.2.0` (npx), in any folder. */
const PIPESCOPE = /^pipescope(?:@[^\\/]*)?(?:\.[cm]?js|\.cmd|\.exe|\.ps1)?$/i;

function isPipescope(word: string): boolean {
  return PIPESCOPE.test(word.split(/[\\/]/).at(-1) ?? '');
}

/**
 * Where `tap` is in an entry's args when the entry already runs `pipescope tap` (ours:
 * `node …/pipescope.js tap`; by hand: `pipescope tap`, `npx -y pipescope tap`), else -1.
 */
export function tapIndex(command: unknown, args: unknown): number {
  if (typeof command !== 'string' || !Array.isArray(args)) return -1;
  if (isPipescope(command) && args[0] === 'tap') return 0;
  for (let k = 0; k + 1 < args.length; k++) {
    if (typeof args[k] === 'string' && isPipescope(args[k]) && args[k + 1] === 'tap') return k + 1;
  }
  return -1;
}

/** The tap's options that take a value (DESIGN.md "Tap, attach and check", and `--host`). */
const VALUE_OPTIONS = new Set(['--name', '--host', '--trace']);

/**
 * The server's argv inside a tapped entry: what follows the `--` that ends the tap's own
 * options (an option's value may itself be `--`, e.g. a server named "--"). Null when the entry
 * is not tapped or nothing follows the `--`.
 */
export function unwrapArgv(command: unknown, args: unknown): Argv | null {
  const at = tapIndex(command, args);
  if (at < 0 || !Array.isArray(args)) return null;
  for (let k = at + 1; k < args.length; k++) {
    const word = args[k];
    if (typeof word !== 'string') return null;
    if (word === '--') {
      const rest = args.slice(k + 1);
      if (rest.length === 0 || !rest.every((a): a is string => typeof a === 'string')) return null;
      return { command: rest[0], args: rest.slice(1) };
    }
    if (VALUE_OPTIONS.has(word)) k++;
  }
  return null;
}

/**
 * `items` as a JSON array laid out like `like` (the array text it replaces): one item a line
 * with the same indentation and line ending when `like` puts its first item on a line of its
 * own, else on one line.
 */
export function renderArray(items: string[], like: string | null): string {
  const multi = like === null ? null : /^\[[ \t]*(\r?\n)([ \t]*)/.exec(like);
  if (!multi || like === null || items.length === 0) {
    return `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;
  }
  const [, eol, indent] = multi;
  const close = /\n([ \t]*)\]$/.exec(like)?.[1] ?? '';
  const lines = items.map((s) => indent + JSON.stringify(s));
  return `[${eol}${lines.join(`,${eol}`)}${eol}${close}]`;
}
