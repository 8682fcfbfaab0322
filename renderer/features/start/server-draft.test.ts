import { describe, expect, it } from 'vitest';
import { parseArgs } from './argv';
import { argsText, draftFromConfig, keptEnvNames } from './server-draft';

describe('argsText', () => {
  it('puts arguments one a line when lines can hold them', () => {
    expect(argsText(['-e', 'console.log(1)', 'srv.js'])).toEqual({
      text: '-e\nconsole.log(1)\nsrv.js',
      mode: 'lines',
    });
  });

  it('quotes them when a line cannot (empty, a newline, a trailing \\r), and reads back the same', () => {
    for (const args of [['a', ''], ['-e', 'a\nb'], ['x\r'], ["it's", 'a b']]) {
      const { text, mode } = argsText(args);
      const back = parseArgs(text, mode);
      expect(back.ok && back.value).toEqual(args);
    }
    expect(argsText(['a', '']).mode).toBe('shell');
  });
});

describe('draftFromConfig', () => {
  it('fills the form from a config; variables come back by name, kept', () => {
    const draft = draftFromConfig({
      server: { command: 'node', args: ['srv.js'], cwd: '/srv', envNames: ['API_KEY'] },
      readerMode: 'paused',
      maxFrameBytes: 2 * 1024 * 1024,
      hostProfile: 'cursor',
      consumerDelayMs: 25,
    });
    expect(draft).toMatchObject({
      name: '',
      command: 'node',
      argsText: 'srv.js',
      argsMode: 'lines',
      cwd: '/srv',
      readerMode: 'paused',
      maxFrameMiB: '2',
      hostProfile: 'cursor',
      extra: { consumerDelayMs: 25 },
    });
    expect(draft.env).toMatchObject([{ name: 'API_KEY', value: '', kept: true }]);
  });

  it('takes the defaults a config left out', () => {
    const draft = draftFromConfig({ server: { command: 'x', args: [], envNames: [] } });
    expect(draft).toMatchObject({
      readerMode: 'drain',
      maxFrameMiB: '128',
      hostProfile: null,
      extra: {},
    });
  });
});

describe('keptEnvNames', () => {
  it('asks the host for kept variables left empty, not for typed or new ones', () => {
    expect(
      keptEnvNames([
        { key: 1, name: 'A', value: '', kept: true },
        { key: 2, name: 'B', value: 'typed', kept: true },
        { key: 3, name: 'C', value: '' },
        { key: 4, name: '', value: '', kept: true },
      ]),
    ).toEqual(['A']);
  });
});
