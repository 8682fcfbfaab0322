/**
 * The custom server form's fields, filled from a session's start config (Edit & retry) and
 * back into a start request. Environment values stay on the host: a variable comes back as
 * its name, marked kept, and `keepEnv` asks the host for the old value unless one is typed.
 * Pure.
 */
import type { SessionConfigView, StartOptions } from '../../../shared/host-api';
import type { HostProfileId } from '../../../shared/host-profiles';
import type { ReaderMode } from '../../../shared/session-options';
import { MIB } from '../../../shared/units';
import { type ArgsMode, formatArgv } from './argv';
import { type EnvRow, newEnvRow } from './EnvRows';
import { maxFrameMiBFor } from './host-profile-view';

export interface ServerDraft {
  name: string;
  command: string;
  argsText: string;
  argsMode: ArgsMode;
  cwd: string;
  env: EnvRow[];
  readerMode: ReaderMode;
  maxFrameMiB: string;
  hostProfile: HostProfileId | null;
  /** The config's other options (overload, oversize, delays, budgets): sent back as they were. */
  extra: StartOptions;
}

export type ServerConfigView = Extract<SessionConfigView, { server: unknown }>;

/** Arguments one a line when lines can hold them all (a blank one, a newline, a trailing \r
 *  cannot be), else quoted as a shell would read them back. */
export function argsText(args: readonly string[]): { text: string; mode: ArgsMode } {
  const linesHold = args.every((a) => a.length > 0 && !a.includes('\n') && !a.endsWith('\r'));
  return linesHold
    ? { text: args.join('\n'), mode: 'lines' }
    : { text: formatArgv(args), mode: 'shell' };
}

export function draftFromConfig(view: ServerConfigView): ServerDraft {
  const { server, readerMode, maxFrameBytes, hostProfile, ...extra } = view;
  const args = argsText(server.args);
  const profile = hostProfile ?? null;
  return {
    name: server.name ?? '',
    command: server.command,
    argsText: args.text,
    argsMode: args.mode,
    cwd: server.cwd ?? '',
    env: server.envNames.map((name) => ({ ...newEnvRow(name), kept: true })),
    readerMode: readerMode ?? 'drain',
    maxFrameMiB:
      maxFrameBytes === undefined ? maxFrameMiBFor(profile) : String(maxFrameBytes / MIB),
    hostProfile: profile,
    extra,
  };
}

/** The variables whose values the host keeps: kept rows left empty. */
export function keptEnvNames(rows: readonly EnvRow[]): string[] {
  return rows.filter((r) => r.kept && r.name !== '' && r.value === '').map((r) => r.name);
}
