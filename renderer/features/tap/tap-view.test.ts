import { describe, expect, it } from 'vitest';
import type { TapInfo } from '../../../shared/session-info';
import { closeTitle, hostName, hostTap, tapBadgeTitle, tapBannerText } from './tap-view';

function tap(over: Partial<TapInfo> = {}, host: Partial<TapInfo['host']> = {}): TapInfo {
  return {
    name: 'filesystem',
    host: { label: 'Claude Desktop', pid: 4242, command: '/opt/claude/claude --foo', ...host },
    tapPid: 4300,
    server: { command: 'npx', args: ['server-filesystem'], cwd: '/home/u' },
    ...over,
  };
}

describe('tapped sessions: whose traffic, in words', () => {
  it('the host’s session is tapped; a replay the tap started is not; other sessions neither', () => {
    expect(hostTap({ tap: tap() })).not.toBeNull();
    expect(hostTap({ tap: tap({ replay: true }) })).toBeNull();
    expect(hostTap({ tap: null })).toBeNull();
    expect(hostTap({})).toBeNull();
    expect(hostTap(undefined)).toBeNull();
  });

  it('names the host by its label, else its command (shortened), else "a host"', () => {
    expect(hostName(tap())).toBe('Claude Desktop');
    expect(hostName(tap({}, { label: null }))).toBe('/opt/claude/claude --foo');
    const long = `/usr/bin/${'x'.repeat(100)}`;
    const shown = hostName(tap({}, { label: null, command: long }));
    expect(shown).toHaveLength(60);
    expect(shown.endsWith('…')).toBe(true);
    expect(hostName(tap({}, { label: null, command: null }))).toBe('a host');
  });

  it('the banner and the badge say who runs the server, and that Cancel is marked', () => {
    expect(tapBannerText(tap())).toBe(
      'Tapped: Claude Desktop (pid 4242) runs this server through pipescope tap; read-only. Cancel marks a cancellation as sent by Pipescope.',
    );
    expect(tapBadgeTitle(tap())).toBe(
      'Tapped: Claude Desktop (pid 4242) runs this server through pipescope tap',
    );
    expect(tapBannerText(tap({ replay: true }))).toMatch(/^Replay: the tap of Claude Desktop/);
    expect(tapBadgeTitle(tap({ replay: true }))).toMatch(/host's server is not touched$/);
  });

  it('closing the host’s session only hides its tab', () => {
    expect(closeTitle({ tap: tap() })).toMatch(/^Hide this tab/);
    expect(closeTitle({ tap: tap({ replay: true }) })).toBe('Stop the server and close the tab');
    expect(closeTitle({ tap: null })).toBe('Stop the server and close the tab');
  });
});
