/**
 * What a tapped session (`pipescope tap`, SessionInfo.tap) says about itself: whose traffic it
 * is, and the words the tab, the banner and the controls use for it. Pure.
 *
 * Two kinds of session carry `tap`: the host's own (read-only for its traffic: the tap refuses
 * stop, reader mode, limits, the composer and the recovery probe, and allows Cancel, Replay and
 * the flight recorder's dump) and a replay the tap started on a fresh server (`tap.replay`),
 * whose traffic is Pipescope's, so every control works there.
 */
import type { SessionInfo, TapInfo } from '../../../shared/session-info';

const HOST_COMMAND_SHOWN = 60;

/** The host's tap of a session whose traffic is a host's; null for any other session. */
export function hostTap(info: Pick<SessionInfo, 'tap'> | undefined): TapInfo | null {
  const tap = info?.tap;
  return tap && !tap.replay ? tap : null;
}

/** The host by its label ("Claude Desktop"), else its command line (shortened), else "a host". */
export function hostName(tap: TapInfo): string {
  if (tap.host.label) return tap.host.label;
  const command = tap.host.command?.trim();
  if (!command) return 'a host';
  return command.length > HOST_COMMAND_SHOWN
    ? `${command.slice(0, HOST_COMMAND_SHOWN - 1)}…`
    : command;
}

/** The tooltip of the tab's badge. */
export function tapBadgeTitle(tap: TapInfo): string {
  const host = `${hostName(tap)} (pid ${tap.host.pid})`;
  return tap.replay
    ? `A fresh server the tap of ${host} started to replay a request; the host's server is not touched`
    : `Tapped: ${host} runs this server through pipescope tap`;
}

/** The banner's first sentence (the session view of a tapped session). */
export function tapBannerText(tap: TapInfo): string {
  if (tap.replay)
    return `Replay: the tap of ${hostName(tap)} (pid ${tap.host.pid}) started this server to replay a request; its traffic is Pipescope's, not the host's.`;
  return `Tapped: ${hostName(tap)} (pid ${tap.host.pid}) runs this server through pipescope tap; read-only. Cancel marks a cancellation as sent by Pipescope.`;
}

/** Why the controls that act on the server are not there (the banner's second line). */
export const TAP_READ_ONLY_WHY =
  'Stop, Record, reader mode, limits, the composer and the recovery probe are off: the host owns this session.';

/** The close (×) button's tooltip: on the host's session it only hides the tab. */
export function closeTitle(info: Pick<SessionInfo, 'tap'>): string {
  return hostTap(info)
    ? "Hide this tab (the host's server keeps running; reload the page to show it again)"
    : 'Stop the server and close the tab';
}

export const REPLAY_LABEL = 'Replay on a fresh server';
export const REPLAY_TITLE =
  "The tap starts a fresh process of this server and sends the host's request there; the host's server is not touched (r)";
