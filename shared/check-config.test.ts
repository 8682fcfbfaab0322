import { describe, expect, it } from 'vitest';
import { parseCheckConfig } from './check-config.js';

describe('parseCheckConfig (pipescope.check.json)', () => {
  it('takes a full config and fills the defaults', () => {
    const r = parseCheckConfig({
      $schema: 'https://example.invalid/check.json',
      server: { command: 'node', args: ['dist/server.js'], env: { LOG_LEVEL: 'debug' } },
      tools: [
        { name: 'search', args: { query: 'item' } },
        { name: 'produce', slow: true, timeoutMs: 20000 },
        { name: 'run', subprocess: true },
      ],
      timeoutMs: 5000,
      pauseMs: 1000,
      resultBudgetBytes: 65536,
      host: 'claude-desktop',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.tools?.[1]).toEqual({ name: 'produce', args: {}, slow: true, timeoutMs: 20000 });
    expect(r.value.server?.cwd).toBeUndefined();
  });

  it('an empty object is a valid config (the defaults)', () => {
    expect(parseCheckConfig({})).toEqual({ ok: true, value: {} });
  });

  it('reports every mistake on its own line, with where it is', () => {
    const r = parseCheckConfig({
      tools: [{ tool: 'search' }, { name: '', args: [], timeoutMs: 5.5 }],
      timeoutMs: 'ten',
      host: 'emacs',
      server: { command: 7, env: { TOKEN: 1 } },
      extra: true,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    // (In the schema's order: server, tools, budgets, host; unknown keys last.)
    expect(r.errors).toEqual([
      'server.command: expected the command (a string)',
      'server.env.TOKEN: expected a string value',
      'tools[0].name: required',
      'tools[0].tool: unknown key (see docs/check.md)',
      'tools[1].name: the tool name is empty',
      'tools[1].args: expected the arguments as a JSON object',
      'tools[1].timeoutMs: expected a whole number of milliseconds',
      'timeoutMs: expected a number of milliseconds',
      expect.stringMatching(/^host: expected one of ts-sdk, .*vscode$/),
      'extra: unknown key (see docs/check.md)',
    ]);
  });

  it('a config that is not an object says so', () => {
    for (const v of [null, [], 'tools', 3])
      expect(parseCheckConfig(v)).toEqual({
        ok: false,
        errors: ['(top level): expected a JSON object'],
      });
  });

  it('bounds the budgets', () => {
    const r = parseCheckConfig({ timeoutMs: 10, pauseMs: 10 ** 9, resultBudgetBytes: 0 });
    expect(r.ok ? [] : r.errors).toEqual([
      'timeoutMs: at least 100 ms',
      'pauseMs: at most 60000 ms',
      'resultBudgetBytes: at least 1 byte',
    ]);
  });
});
