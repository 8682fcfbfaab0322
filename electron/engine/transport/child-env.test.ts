import { describe, expect, it } from 'vitest';
import { buildChildEnv, defaultEnvNames } from './child-env.js';

const parent: NodeJS.ProcessEnv = {
  HOME: '/home/ada',
  LOGNAME: 'ada',
  PATH: '/usr/bin:/bin',
  SHELL: '/bin/bash',
  TERM: 'xterm-256color',
  USER: 'ada',
  AWS_SECRET_ACCESS_KEY: 'canary-aws-secret',
  GITHUB_TOKEN: 'canary-gh-token',
  NODE_OPTIONS: '--require /tmp/evil.js',
  LD_PRELOAD: '/tmp/evil.so',
  'BASH_FUNC_foo%%': '() {  echo pwned\n}',
};

describe('defaultEnvNames', () => {
  it('is the minimal POSIX list', () => {
    expect(defaultEnvNames('linux')).toEqual(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']);
    expect(defaultEnvNames('darwin')).toEqual(defaultEnvNames('linux'));
  });

  it('is the Windows list on win32', () => {
    const names = defaultEnvNames('win32');
    expect(names).toContain('PATH');
    expect(names).toContain('SYSTEMROOT');
    expect(names).toContain('USERPROFILE');
    expect(names).not.toContain('HOME');
    expect(names).not.toContain('SHELL');
  });
});

describe('buildChildEnv', () => {
  it('passes only HOME, LOGNAME, PATH, SHELL, TERM and USER from the parent', () => {
    const env = buildChildEnv({}, parent, 'linux');
    expect(env).toEqual({
      HOME: '/home/ada',
      LOGNAME: 'ada',
      PATH: '/usr/bin:/bin',
      SHELL: '/bin/bash',
      TERM: 'xterm-256color',
      USER: 'ada',
    });
  });

  it('never passes a canary secret from the parent', () => {
    const env = buildChildEnv({ API_URL: 'http://localhost' }, parent, 'linux');
    const dump = JSON.stringify(env);
    expect(dump).not.toContain('canary');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(env).not.toHaveProperty('NODE_OPTIONS');
    expect(env).not.toHaveProperty('LD_PRELOAD');
  });

  it('uses process.env by default and still filters it', () => {
    const key = 'PIPESCOPE_TEST_CANARY_SECRET';
    process.env[key] = 'canary-from-process-env';
    try {
      const env = buildChildEnv({});
      expect(env).not.toHaveProperty(key);
      for (const name of Object.keys(env)) expect(defaultEnvNames()).toContain(name);
    } finally {
      delete process.env[key];
    }
  });

  it('adds the configured env, which wins over the defaults', () => {
    const env = buildChildEnv(
      { PATH: '/opt/server/bin', API_TOKEN: 'configured' },
      parent,
      'linux',
    );
    expect(env.PATH).toBe('/opt/server/bin');
    expect(env.API_TOKEN).toBe('configured');
    expect(env.HOME).toBe('/home/ada');
  });

  it('skips default variables holding bash exported functions', () => {
    const env = buildChildEnv(
      {},
      { ...parent, TERM: '() { :;}; echo vulnerable', SHELL: '() {' },
      'linux',
    );
    expect(env).not.toHaveProperty('TERM');
    expect(env).not.toHaveProperty('SHELL');
    expect(env.PATH).toBe('/usr/bin:/bin');
    expect(env).not.toHaveProperty('BASH_FUNC_foo%%');
  });

  it('leaves out defaults the parent does not have, and keeps empty values', () => {
    const env = buildChildEnv({}, { PATH: '/bin', TERM: '' }, 'linux');
    expect(env).toEqual({ PATH: '/bin', TERM: '' });
  });

  it('uses the Windows list on win32', () => {
    const env = buildChildEnv(
      {},
      {
        PATH: 'C:\\Windows',
        SYSTEMROOT: 'C:\\Windows',
        USERPROFILE: 'C:\\Users\\ada',
        HOME: '/should/not/pass',
        AWS_SECRET_ACCESS_KEY: 'canary',
      },
      'win32',
    );
    expect(env).toEqual({
      PATH: 'C:\\Windows',
      SYSTEMROOT: 'C:\\Windows',
      USERPROFILE: 'C:\\Users\\ada',
    });
  });
});
