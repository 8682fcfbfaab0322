import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { defaultTools, type Observed, type PlannedTool, pickRoles, unlisted } from './plan.js';

const tool = (name: string, required?: string[], annotations?: Tool['annotations']): Tool => ({
  name,
  inputSchema: { type: 'object', properties: {}, ...(required ? { required } : {}) },
  ...(annotations ? { annotations } : {}),
});

function seen(name: string, o: Partial<Observed> = {}, t: Partial<PlannedTool> = {}): Observed {
  return {
    tool: { name, args: {}, source: 'config', timeoutMs: 10_000, ...t },
    status: 'completed',
    latencyMs: 10,
    responseBytes: 100,
    progress: 0,
    notifications: 0,
    subprocesses: [],
    answered: true,
    noAnswer: false,
    ...o,
  };
}

describe('defaultTools', () => {
  it('calls every tool without a required parameter, and says why the others are not called', () => {
    const { chosen, notCalled } = defaultTools(
      [
        tool('list'),
        tool('get', ['id']),
        tool('wipe', [], { destructiveHint: true }),
        tool('read', [], { readOnlyHint: true, destructiveHint: true }),
        tool('two', ['a', 'b']),
      ],
      5000,
    );
    expect(chosen.map((c) => [c.name, c.args, c.timeoutMs, c.source])).toEqual([
      ['list', {}, 5000, 'default'],
      ['read', {}, 5000, 'default'],
    ]);
    expect(notCalled).toEqual([
      { name: 'get', why: 'required parameter "id"' },
      { name: 'wipe', why: 'declares itself destructive (destructiveHint)' },
      { name: 'two', why: 'required parameters "a", "b"' },
    ]);
  });

  it('names the tools that are not listed', () => {
    expect(unlisted([seen('a').tool, seen('zz').tool, seen('zz').tool], [tool('a')])).toEqual([
      'zz',
    ]);
  });
});

describe('pickRoles', () => {
  it('largest answer, slowest call from 500 ms, a subprocess seen, quick calls', () => {
    const r = pickRoles([
      seen('small', { latencyMs: 5, responseBytes: 10 }),
      seen('big', { latencyMs: 80, responseBytes: 5000 }),
      seen('slow', { latencyMs: 1500 }),
      seen('sub', { latencyMs: 700, subprocesses: [{ pid: 9, command: 'sh' }] }),
      seen('broken', { status: 'failed', answered: false, latencyMs: null, responseBytes: null }),
    ]);
    expect(r.largest?.tool.name).toBe('big');
    expect(r.slow?.tool.name).toBe('slow');
    expect(r.subprocess?.tool.name).toBe('sub');
    expect(r.quick.map((q) => q.tool.name)).toEqual(['small', 'big', 'slow', 'sub']);
  });

  it('no slow tool under 500 ms; a call with no answer counts as its whole budget', () => {
    expect(pickRoles([seen('a', { latencyMs: 499 })]).slow).toBeNull();
    const hung = seen('hung', {
      status: 'timed-out',
      answered: false,
      noAnswer: true,
      latencyMs: null,
    });
    const r = pickRoles([seen('a', { latencyMs: 900 }), hung]);
    expect(r.slow?.tool.name).toBe('hung');
    expect(r.largest?.tool.name).toBe('a');
  });

  it('a tool named slow or subprocess in the config wins over what was measured', () => {
    const r = pickRoles([
      seen('measured', { latencyMs: 3000, subprocesses: [{ pid: 1, command: 'x' }] }),
      seen('named', { latencyMs: 3 }, { slow: true, subprocess: true }),
    ]);
    expect(r.slow?.tool.name).toBe('named');
    expect(r.subprocess?.tool.name).toBe('named');
  });
});
