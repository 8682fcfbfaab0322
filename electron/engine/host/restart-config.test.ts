import { describe, expect, it } from 'vitest';
import type { ChannelPayload } from '../../../shared/host-api.js';
import { configView, withKeptEnv } from './restart-config.js';

type StartPayload = ChannelPayload<'session:start'>;

const server: StartPayload = {
  server: {
    name: 'mine',
    command: 'node',
    args: ['srv.js'],
    cwd: '/srv',
    env: { API_KEY: 'canary-secret-1', MODE: 'dev' },
  },
  readerMode: 'paused',
  maxFrameBytes: 1024,
};

describe('configView', () => {
  it('gives the names of environment variables, never their values', () => {
    const view = configView(server);
    expect(view).toEqual({
      readerMode: 'paused',
      maxFrameBytes: 1024,
      server: {
        name: 'mine',
        command: 'node',
        args: ['srv.js'],
        cwd: '/srv',
        envNames: ['API_KEY', 'MODE'],
      },
    });
    expect(JSON.stringify(view)).not.toContain('canary-secret-1');
  });

  it('gives a demo and its knobs as started', () => {
    const view = configView({
      demo: { id: 'healthy', knobs: { items: '5' } },
      hostProfile: 'cursor',
    });
    expect(view).toEqual({ demo: { id: 'healthy', knobs: { items: '5' } }, hostProfile: 'cursor' });
  });
});

describe('withKeptEnv', () => {
  const edited = (env: Record<string, string>): StartPayload => ({
    server: { command: 'node', args: ['fixed.js'], env },
  });

  it('fills the kept names from the old config', () => {
    const next = withKeptEnv(edited({}), server, ['API_KEY']);
    expect('server' in next && next.server.env).toEqual({ API_KEY: 'canary-secret-1' });
  });

  it('lets a value typed in the edit win, and drops names not kept', () => {
    const next = withKeptEnv(edited({ API_KEY: 'new' }), server, ['API_KEY']);
    expect('server' in next && next.server.env).toEqual({ API_KEY: 'new' });
  });

  it('ignores names the old config never had, and demos', () => {
    const next = withKeptEnv(edited({}), server, ['OTHER', '__proto__']);
    expect('server' in next && next.server.env).toEqual({});
    const demo: StartPayload = { demo: { id: 'healthy', knobs: {} } };
    expect(withKeptEnv(demo, server, ['API_KEY'])).toBe(demo);
  });
});
