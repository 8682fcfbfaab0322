import { describe, expect, it } from 'vitest';
import { SESSION_DEFAULTS } from '../../../shared/session-options';
import { MIB } from '../../../shared/units';
import { splitShellLike } from '../start/argv';
import {
  type ProbeCommandInput,
  type ProbeSession,
  probeCommand,
  shellWord,
} from './probe-command';

/** The words a POSIX shell would read from `text` (argv.ts's splitter: quotes, no expansion). */
function words(text: string): string[] {
  const r = splitShellLike(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const HOSTILE = [
  '',
  ' ',
  "it's",
  "''",
  "'\\''",
  '"double"',
  '$(rm -rf /)',
  '`id`',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile string, literally
  '${HOME}',
  '$HOME',
  'a\nb',
  'tab\there',
  'back\\slash',
  '!history',
  '*.json',
  '~/x',
  'a;b|c&d>e<f',
  '# not a comment',
  '-rf',
  '--',
  'héllo wörld ✓ 🎉 \u2028 \u2029',
];

describe('shellWord', () => {
  it('leaves safe words bare', () => {
    expect(shellWord('node')).toBe('node');
    expect(shellWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellWord('--page-size=20')).toBe('--page-size=20');
  });

  it('quotes everything a shell would read otherwise', () => {
    expect(shellWord('')).toBe("''");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('$(id)')).toBe("'$(id)'");
    expect(shellWord('a\nb')).toBe("'a\nb'");
    expect(shellWord('ü')).toBe("'ü'");
  });

  it('reads back as exactly one word, for hostile strings', () => {
    for (const s of HOSTILE) expect(words(shellWord(s)), JSON.stringify(s)).toEqual([s]);
  });

  it('never leaves a quote open or a character outside quotes unescaped', () => {
    for (const s of HOSTILE) {
      const q = shellWord(s);
      if (q === s) continue;
      // Only quoted runs and \' between them.
      expect(q).toMatch(/^(?:'[^']*'|\\')+$/);
    }
  });
});

const session: ProbeSession = {
  command: '/usr/bin/node',
  args: ['/opt/demo servers/healthy.js', '--page-size=20'],
  cwd: null,
  envNames: [],
  hostProfile: null,
  maxFrameBytes: SESSION_DEFAULTS.maxFrameBytes,
  onOversize: SESSION_DEFAULTS.onOversize,
  resultBudgetBytes: SESSION_DEFAULTS.resultBudgetBytes,
  readerMode: 'drain',
  consumerDelayMs: 0,
};
const base: ProbeCommandInput = {
  session,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: "it's $(id) `x`\n✓" } },
};
const withSession = (s: Partial<ProbeSession>): ProbeCommandInput => ({
  ...base,
  session: { ...session, ...s },
});

/** The words of a command, and its first two (`npx pipescope probe`) checked and dropped. */
function probeWords(r: ReturnType<typeof probeCommand>): string[] {
  if (!r?.ok) throw new Error(`expected a command, got ${JSON.stringify(r)}`);
  const w = words(r.text);
  expect(w.slice(0, 3)).toEqual(['npx', 'pipescope', 'probe']);
  return w.slice(3);
}

describe('probeCommand', () => {
  it('builds --call, --args and the argv after --', () => {
    const r = probeCommand(base);
    expect(r).toMatchObject({ ok: true, notes: [] });
    const w = probeWords(r);
    expect(w.slice(0, 3)).toEqual(['--call', 'echo', '--args']);
    expect(JSON.parse(w[3])).toEqual({ text: "it's $(id) `x`\n✓" });
    expect(w.slice(4)).toEqual([
      '--',
      '/usr/bin/node',
      '/opt/demo servers/healthy.js',
      '--page-size=20',
    ]);
  });

  it('round-trips hostile arguments, tool names and argv through the quoting', () => {
    for (const s of HOSTILE) {
      const r = probeCommand({
        session: { ...session, command: s || 'x', args: [s, `--flag=${s}`] },
        method: 'tools/call',
        params: { name: `t${s}`, arguments: { [s]: s, nested: { list: [s, 1, null] } } },
      });
      const w = probeWords(r);
      expect(w[0], JSON.stringify(s)).toBe('--call');
      expect(w[1]).toBe(`t${s}`);
      expect(JSON.parse(w[3])).toEqual({ [s]: s, nested: { list: [s, 1, null] } });
      expect(w.slice(4)).toEqual(['--', s || 'x', s, `--flag=${s}`]);
    }
  });

  it('omits --args when the request had none, and passes a dash-led tool name in one word', () => {
    const w = probeWords(probeCommand({ ...base, params: { name: '-x' } }));
    expect(w.slice(0, 2)).toEqual(['--call=-x', '--']);
  });

  it('adds --host, the cwd and a note about env names', () => {
    const r = probeCommand(
      withSession({ hostProfile: 'claude-desktop', cwd: "/tmp/o'dd dir", envNames: ['API_KEY'] }),
    );
    if (!r?.ok) throw new Error('expected a command');
    expect(r.text.startsWith(`cd '/tmp/o'\\''dd dir' && npx pipescope probe`)).toBe(true);
    const w = words(r.text);
    expect(w.slice(0, 3)).toEqual(['cd', "/tmp/o'dd dir", '&&']);
    expect(w[w.indexOf('--host') + 1]).toBe('claude-desktop');
    expect(w.indexOf('--host')).toBeLessThan(w.indexOf('--'));
    expect(r.notes.join(' ')).toContain('API_KEY');
    // Claude Desktop's result limit is the profile's budget: no --result-budget-bytes for it.
    expect(w).not.toContain('--result-budget-bytes');
  });

  it('carries the limits that differ from the probe defaults under the profile', () => {
    // ts-sdk sets a 10 MiB cap and terminate: nothing more to say for those.
    const ts = probeWords(
      probeCommand(
        withSession({ hostProfile: 'ts-sdk', maxFrameBytes: 10 * MIB, onOversize: 'terminate' }),
      ),
    );
    expect(ts.slice(ts.indexOf('--args') + 2, ts.indexOf('--'))).toEqual(['--host', 'ts-sdk']);
    const custom = probeWords(
      probeCommand(
        withSession({
          maxFrameBytes: 4 * MIB,
          onOversize: 'terminate',
          resultBudgetBytes: 2048,
          readerMode: 'paused',
          consumerDelayMs: 50,
        }),
      ),
    );
    expect(custom.slice(custom.indexOf('--args') + 2, custom.indexOf('--'))).toEqual([
      '--max-frame-bytes',
      String(4 * MIB),
      '--on-oversize',
      'terminate',
      '--result-budget-bytes',
      '2048',
      '--reader',
      'paused',
      '--consumer-delay-ms',
      '50',
    ]);
  });

  it('says why when the params are unknown or not usable', () => {
    expect(probeCommand({ ...base, params: undefined })).toMatchObject({ ok: false });
    expect(probeCommand({ ...base, params: { arguments: {} } })).toMatchObject({ ok: false });
    expect(probeCommand({ ...base, params: { name: 'echo', arguments: [1] } })).toMatchObject({
      ok: false,
    });
  });

  it('offers a plain probe for what every probe sends, nothing for other methods', () => {
    const init = probeCommand({ ...base, method: 'initialize', params: {} });
    expect(probeWords(init)).toEqual([
      '--',
      '/usr/bin/node',
      '/opt/demo servers/healthy.js',
      '--page-size=20',
    ]);
    expect(probeCommand({ ...base, method: 'tools/list', params: undefined })?.ok).toBe(true);
    expect(probeCommand({ ...base, method: 'resources/read' })).toBeNull();
    expect(probeCommand({ ...base, method: 'ping' })).toBeNull();
  });
});
