/**
 * What happened to a session, in words (issue 22): the badge says "exited with code 3",
 * "killed by SIGKILL", "crashed (SIGSEGV)" or "stopped by you" instead of STOPPED, and a start
 * that failed (the command not found, not allowed, or a server that exited before answering
 * initialize) is a state of its own, with its cause and what to try. Pure.
 */
import type { SessionInfo } from '../../../shared/session-info';

export type OutcomeKind =
  | 'starting'
  | 'running'
  | 'stopping'
  | 'failed-start'
  | 'exited'
  | 'crashed'
  | 'killed'
  | 'stopped';

export interface Outcome {
  kind: OutcomeKind;
  /** A few words for the badge, the tab menu and the session list. */
  badge: string;
  /** One sentence: what happened, with the code or signal. */
  detail: string;
}

/** Linux signal numbers (an exit code of 128 + n from a shell or wrapper names one). */
const SIGNALS = [
  'SIGHUP',
  'SIGINT',
  'SIGQUIT',
  'SIGILL',
  'SIGTRAP',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGKILL',
  'SIGUSR1',
  'SIGSEGV',
  'SIGUSR2',
  'SIGPIPE',
  'SIGALRM',
  'SIGTERM',
] as const;

/** Signals a process dies of when it crashed, not when it was told to stop. */
const CRASH_SIGNALS = new Set([
  'SIGSEGV',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
  'SIGABRT',
  'SIGTRAP',
  'SIGSYS',
]);

type Exit = NonNullable<SessionInfo['exit']>;

/** "exited with code 3", "killed by SIGKILL", "crashed (SIGSEGV)", "exited (code 0)". */
export function exitWords(exit: Exit | null): { kind: OutcomeKind; words: string } {
  if (!exit) return { kind: 'stopped', words: 'stopped' };
  if (exit.signal) {
    if (CRASH_SIGNALS.has(exit.signal))
      return { kind: 'crashed', words: `crashed (${exit.signal})` };
    return { kind: 'killed', words: `killed by ${exit.signal}` };
  }
  if (exit.code === null) return { kind: 'stopped', words: 'stopped' };
  if (exit.code === 0) return { kind: 'exited', words: 'exited (code 0)' };
  const signal = exit.code > 128 ? SIGNALS[exit.code - 129] : undefined;
  // A shell or wrapper reports its child's death by a signal as 128 + n.
  if (signal)
    return {
      kind: CRASH_SIGNALS.has(signal) ? 'crashed' : 'killed',
      words: `exited with code ${exit.code} (128 + ${signal})`,
    };
  return { kind: 'exited', words: `exited with code ${exit.code}` };
}

/** Whether a server that is over never got as far as answering initialize. */
function endedBeforeHandshake(info: SessionInfo): boolean {
  return (
    info.state === 'stopped' &&
    info.end?.by === 'server' &&
    info.serverInfo === null &&
    !info.trace &&
    !info.tap
  );
}

export function sessionOutcome(info: SessionInfo): Outcome {
  const { state } = info;
  if (state === 'starting')
    return { kind: state, badge: 'starting', detail: 'The server is starting.' };
  if (state === 'running')
    return { kind: state, badge: 'running', detail: 'The server is running.' };
  if (state === 'stopping')
    return {
      kind: state,
      badge: 'stopping',
      detail: 'Stopping: stdin closed, then SIGTERM, then SIGKILL.',
    };
  if (state === 'failed' || info.startError)
    return {
      kind: 'failed-start',
      badge: 'failed to start',
      detail: info.startError ?? 'The server could not start.',
    };
  const exit = exitWords(info.exit);
  if (endedBeforeHandshake(info))
    return {
      kind: 'failed-start',
      badge: 'failed to start',
      detail: `The server ${exit.words} before answering initialize.`,
    };
  if (info.end?.by === 'user') {
    const then = info.exit ? ` (then it ${exit.words})` : '';
    return { kind: 'stopped', badge: 'stopped by you', detail: `You stopped the server${then}.` };
  }
  if (info.end?.by === 'pipescope') {
    return {
      kind: 'stopped',
      badge: 'stopped by Pipescope',
      detail: `Pipescope ended the session (a terminate policy, or the reader failed: see stderr and findings); the server ${exit.words}.`,
    };
  }
  return { kind: exit.kind, badge: exit.words, detail: `The server ${exit.words}.` };
}

export interface StartFailureWords {
  /** What went wrong, first. */
  headline: string;
  /** What to try. */
  hint: string;
  /** ENOENT, EACCES, ENOCWD, EXIT, … */
  code: string;
}

/** The cause of a failed start in words, and what to try. */
export function startFailureWords(info: SessionInfo): StartFailureWords {
  const cmd = info.command;
  switch (info.startErrorCode ?? codeIn(info.startError)) {
    case 'ENOENT':
      return {
        code: 'ENOENT',
        headline: `Command not found: ${cmd}`,
        hint: 'Nothing of that name is on the server’s PATH. Check the spelling, or give the full path (which node, which python3).',
      };
    case 'EACCES':
      return {
        code: 'EACCES',
        headline: `Permission denied: ${cmd}`,
        hint: 'It is not executable, or it is a folder. Make it executable (chmod +x) with a #! line, or run it through its interpreter (node, python3).',
      };
    case 'ENOCWD':
      return {
        code: 'ENOCWD',
        headline: `The working folder does not exist: ${info.cwd ?? ''}`,
        hint: 'Fix the cwd, or leave it empty to start in the host’s folder.',
      };
    default:
      break;
  }
  if (info.startError)
    return {
      code: info.startErrorCode ?? 'ESPAWN',
      headline: info.startError,
      hint: 'Check the command and its arguments.',
    };
  const exit = exitWords(info.exit);
  return {
    code: info.exit?.signal ?? `exit ${info.exit?.code ?? '?'}`,
    headline: `${cmd} ${exit.words} before answering initialize`,
    hint: 'The server quit as it started: its last stderr lines (below) usually say why — a missing file or module, a bad argument, a missing variable.',
  };
}

/** An error code in a message ("… (ENOENT)"), for sessions from hosts that do not send one. */
function codeIn(message: string | null): string | null {
  return message ? (/\((E[A-Z]+)\)\s*$/.exec(message)?.[1] ?? null) : null;
}

/** The last `lines` lines of stderr (at most `chars` characters), for the failed-start view. */
export function stderrTail(stderr: string, lines = 12, chars = 4096): string {
  const text = stderr.replace(/\s+$/, '');
  const cut = text.length > chars ? text.slice(text.length - chars) : text;
  return cut.split('\n').slice(-lines).join('\n');
}
