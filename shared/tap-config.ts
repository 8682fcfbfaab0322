/**
 * What `pipescope tap install` / `uninstall` did to a host config (issue 20): made by
 * electron/engine/config/tap-install.ts, printed by the CLI (electron/cli/tap-config-commands.ts)
 * and answered by `config:tap-install` / `config:tap-uninstall` to the start screen.
 */

export type TapStatus = 'wrapped' | 'already-tapped' | 'skipped' | 'unwrapped' | 'left-tapped';

/** What happened to one server entry. */
export interface TapChange {
  name: string;
  /** The server list it is in: `mcpServers`, `servers`, `projects["/home/ada/app"].mcpServers`. */
  location: string;
  status: TapStatus;
  /** Why it was skipped or left tapped, or how an unwrap that is not exact was made. */
  reason?: string;
  /** unwrapped: the original text came back byte for byte (from the manifest). */
  exact?: boolean;
}

export interface TapResult {
  action: 'install' | 'uninstall';
  /** The file edited (symlinks resolved). */
  config: string;
  format: string;
  host: string;
  /** Whether the config file was written (a dry run never writes: what it would change). */
  changed: boolean;
  servers: TapChange[];
  /** The copy of the file as it was before this run's write; null when nothing was written. */
  backup: string | null;
  /** The manifest beside the config after the run, or null when there is none. */
  manifest: string | null;
  /** "Restart <host> for the change to take effect." when the file changed. */
  restart: string | null;
  /** Set on a dry run: nothing was read but the files, nothing was written. */
  dryRun?: boolean;
}

/** What the app answers `config:tap-install` / `config:tap-uninstall` with. */
export interface TapConfigResult extends TapResult {
  /** What a tapped entry runs (install only): the Node binary and bin/pipescope.js, the native
   *  relay that starts them where it runs (Linux), and why that Node when it is not the app's
   *  own (under Electron, the `node` found on PATH). */
  launcher: { node: string; bin: string; front?: string; note: string | null } | null;
}
