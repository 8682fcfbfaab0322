/** What the tap's entry (main.ts) tells its observer thread (observer.ts) at its start. */
export interface ObserverConfig {
  command: string;
  args: string[];
  cwd: string;
  /** The server's name in the host's config (or the command's), for the app and file names. */
  name: string;
  /** The host, when known: its label (from `tap install`) and the tap's parent process. */
  host: { label: string | null; pid: number; command: string | null };
  tapPid: number;
  tracePath: string | null;
  /** false: the `--trace` file is recorded without redaction (the flight recorder still is). */
  redact: boolean;
  publish: boolean;
  /** Which relay moves the bytes (TapInfo.relay). */
  relay: { kind: 'native' | 'node'; reason: string | null };
  /** Epoch ms the relay's clock counts from (both threads share it). */
  startedAtEpochMs: number;
}
