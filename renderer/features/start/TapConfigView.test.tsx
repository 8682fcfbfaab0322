// Server-rendered markup of the tap install views (no DOM environment here): the confirm step
// lists what will be wrapped and what runs; the result shows the backup and the restart line.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { DiscoveredConfig } from '../../../shared/host-api.js';
import type { TapConfigResult } from '../../../shared/tap-config.js';
import { tapChoices } from './TapConfigActions.js';
import { TapOutcome, TapPlan } from './TapConfigView.js';

function result(over: Partial<TapConfigResult> = {}): TapConfigResult {
  return {
    action: 'install',
    config: '/home/ada/.config/Claude/claude_desktop_config.json',
    format: 'claude-desktop',
    host: 'Claude Desktop',
    changed: true,
    servers: [
      { name: 'filesystem', location: 'mcpServers', status: 'wrapped' },
      { name: 'memory', location: 'mcpServers', status: 'already-tapped' },
      { name: 'remote', location: 'mcpServers', status: 'skipped', reason: 'a remote URL' },
    ],
    backup: null,
    manifest: null,
    restart: null,
    dryRun: true,
    launcher: {
      node: '/usr/local/bin/node',
      bin: '/opt/pipescope/bin/pipescope.js',
      note: 'The app runs on Electron, so the tapped entries run the node on PATH.',
    },
    ...over,
  };
}

describe('TapPlan', () => {
  it('lists what will be wrapped, what is not and why, and what the entries run', () => {
    const html = renderToStaticMarkup(
      <TapPlan plan={result()} actions={<button type="button" />} />,
    );
    expect(html).toContain('data-testid="tap-plan"');
    expect(html).toContain('Wrap this server of Claude Desktop in pipescope tap?');
    expect(html).toMatch(/data-name="filesystem" data-status="wrapped".*will be wrapped/);
    expect(html).toContain('already tapped');
    expect(html).toContain(': a remote URL');
    expect(html).toContain('/usr/local/bin/node /opt/pipescope/bin/pipescope.js tap --name');
    expect(html).toContain('node on PATH');
  });

  it('says when there is nothing to change', () => {
    const plan = result({ changed: false, servers: [], action: 'uninstall', launcher: null });
    const html = renderToStaticMarkup(<TapPlan plan={plan} actions={null} />);
    expect(html).toContain('Nothing to untap');
    expect(html).toContain('No tapped server in this file.');
  });
});

describe('TapOutcome', () => {
  it('shows the backup and the restart line', () => {
    const done = result({
      dryRun: undefined,
      backup:
        '/home/ada/.config/Claude/claude_desktop_config.json.pipescope-backup-20250101T000000Z',
      restart: 'Restart Claude Desktop for the change to take effect.',
    });
    const html = renderToStaticMarkup(<TapOutcome result={done} />);
    expect(html).toContain('Tapped 1 server.');
    expect(html).toContain('data-testid="tap-backup"');
    expect(html).toContain('pipescope-backup-20250101T000000Z');
    expect(html).toContain('Restart Claude Desktop for the change to take effect.');
    const none = renderToStaticMarkup(
      <TapOutcome result={result({ changed: false, dryRun: undefined })} />,
    );
    expect(none).toContain('No change: the file was not written.');
    expect(none).not.toContain('tap-restart');
  });
});

describe('tapChoices', () => {
  const base: DiscoveredConfig = {
    path: '/x.json',
    format: 'cursor',
    error: null,
    result: {
      format: 'cursor',
      skipped: [],
      servers: [
        { name: 'a', command: 'x', args: [], env: {}, source: '/x.json' },
        { name: 'b', command: 'y', args: [], env: {}, source: '/x.json' },
      ],
    },
  };
  it('offers Tap while some stdio server is untapped, Untap while one is tapped', () => {
    expect(tapChoices(base)).toEqual({ tap: true, untap: false });
    expect(tapChoices({ ...base, tapped: 1 })).toEqual({ tap: true, untap: true });
    expect(tapChoices({ ...base, tapped: 2 })).toEqual({ tap: false, untap: true });
    expect(tapChoices({ ...base, result: null, error: 'bad' })).toEqual({
      tap: false,
      untap: false,
    });
  });
});
