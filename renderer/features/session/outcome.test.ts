import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../../shared/session-info';
import { DEFAULT_BUDGETS } from '../../../shared/session-options';
import { exitWords, sessionOutcome, startFailureWords, stderrTail } from './outcome';

function info(patch: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: 's1',
    title: 'srv',
    command: 'node',
    args: ['srv.js'],
    cwd: null,
    envNames: [],
    demoId: null,
    pid: 42,
    state: 'running',
    exit: null,
    startError: null,
    serverInfo: { name: 'srv', version: '1', protocolVersion: '2025-06-18' },
    handshakeError: null,
    tools: [],
    readerMode: 'drain',
    consumerDelayMs: 0,
    overloadPolicy: 'drop',
    onOversize: 'discard',
    maxFrameBytes: 1024,
    resultBudgetBytes: 1024,
    hostProfile: null,
    budgets: { ...DEFAULT_BUDGETS },
    startedAt: 0,
    recording: null,
    trace: null,
    process: { available: true },
    ...patch,
  };
}

const stopped = (patch: Partial<SessionInfo>): SessionInfo => info({ state: 'stopped', ...patch });

describe('exitWords', () => {
  it('names the code, the signal, or a crash', () => {
    expect(exitWords({ code: 3, signal: null })).toEqual({
      kind: 'exited',
      words: 'exited with code 3',
    });
    expect(exitWords({ code: 0, signal: null }).words).toBe('exited (code 0)');
    expect(exitWords({ code: null, signal: 'SIGKILL' })).toEqual({
      kind: 'killed',
      words: 'killed by SIGKILL',
    });
    expect(exitWords({ code: null, signal: 'SIGSEGV' })).toEqual({
      kind: 'crashed',
      words: 'crashed (SIGSEGV)',
    });
    expect(exitWords({ code: null, signal: 'SIGABRT' }).kind).toBe('crashed');
    expect(exitWords(null).words).toBe('stopped');
  });

  it('reads 128 + n as the signal a wrapper’s child died of', () => {
    expect(exitWords({ code: 139, signal: null })).toEqual({
      kind: 'crashed',
      words: 'exited with code 139 (128 + SIGSEGV)',
    });
    expect(exitWords({ code: 143, signal: null }).kind).toBe('killed');
    expect(exitWords({ code: 255, signal: null })).toEqual({
      kind: 'exited',
      words: 'exited with code 255',
    });
  });
});

describe('sessionOutcome', () => {
  it('says what happened instead of STOPPED', () => {
    const exited = sessionOutcome(
      stopped({ exit: { code: 3, signal: null }, end: { by: 'server', at: 1 } }),
    );
    expect(exited).toMatchObject({ kind: 'exited', badge: 'exited with code 3' });
    const crashed = sessionOutcome(
      stopped({ exit: { code: null, signal: 'SIGSEGV' }, end: { by: 'server', at: 1 } }),
    );
    expect(crashed.badge).toBe('crashed (SIGSEGV)');
    const killed = sessionOutcome(
      stopped({ exit: { code: null, signal: 'SIGKILL' }, end: { by: 'server', at: 1 } }),
    );
    expect(killed.badge).toBe('killed by SIGKILL');
  });

  it('tells a stop a person asked for from one Pipescope made', () => {
    const mine = sessionOutcome(
      stopped({ exit: { code: null, signal: 'SIGTERM' }, end: { by: 'user', at: 1 } }),
    );
    expect(mine).toMatchObject({ kind: 'stopped', badge: 'stopped by you' });
    expect(mine.detail).toContain('killed by SIGTERM');
    const policy = sessionOutcome(
      stopped({ exit: { code: 0, signal: null }, end: { by: 'pipescope', at: 1 } }),
    );
    expect(policy.badge).toBe('stopped by Pipescope');
  });

  it('makes a start that failed a state of its own', () => {
    const spawn = sessionOutcome(
      info({
        state: 'failed',
        pid: null,
        startError: 'cannot start "x": command not found (ENOENT)',
      }),
    );
    expect(spawn).toMatchObject({ kind: 'failed-start', badge: 'failed to start' });
    const atOnce = sessionOutcome(
      stopped({ serverInfo: null, exit: { code: 3, signal: null }, end: { by: 'server', at: 1 } }),
    );
    expect(atOnce.kind).toBe('failed-start');
    expect(atOnce.detail).toBe('The server exited with code 3 before answering initialize.');
  });

  it('keeps the live states, and a stop by the user before the handshake is not a failed start', () => {
    expect(sessionOutcome(info()).badge).toBe('running');
    expect(sessionOutcome(info({ state: 'starting' })).kind).toBe('starting');
    expect(sessionOutcome(info({ state: 'stopping' })).kind).toBe('stopping');
    const early = sessionOutcome(stopped({ serverInfo: null, end: { by: 'user', at: 1 } }));
    expect(early.badge).toBe('stopped by you');
  });
});

describe('startFailureWords', () => {
  it('puts ENOENT, EACCES and a missing folder in words', () => {
    const enoent = startFailureWords(
      info({ state: 'failed', command: 'nodee', startErrorCode: 'ENOENT', startError: 'x' }),
    );
    expect(enoent).toMatchObject({ code: 'ENOENT', headline: 'Command not found: nodee' });
    expect(enoent.hint).toContain('full path');
    const eacces = startFailureWords(
      info({
        state: 'failed',
        command: './srv.sh',
        startError: 'cannot start "./srv.sh": permission denied (EACCES)',
      }),
    );
    expect(eacces).toMatchObject({ code: 'EACCES', headline: 'Permission denied: ./srv.sh' });
    expect(eacces.hint).toContain('chmod +x');
    const cwd = startFailureWords(
      info({ state: 'failed', cwd: '/nope', startErrorCode: 'ENOCWD', startError: 'x' }),
    );
    expect(cwd.headline).toBe('The working folder does not exist: /nope');
  });

  it('says a server exited at once, with its code', () => {
    const words = startFailureWords(
      stopped({ serverInfo: null, exit: { code: 3, signal: null }, end: { by: 'server', at: 1 } }),
    );
    expect(words).toMatchObject({
      code: 'exit 3',
      headline: 'node exited with code 3 before answering initialize',
    });
  });

  it('keeps any other spawn error as the host said it', () => {
    const words = startFailureWords(
      info({
        state: 'failed',
        startError: 'cannot start "x": spawn E2BIG',
        startErrorCode: 'E2BIG',
      }),
    );
    expect(words).toMatchObject({ code: 'E2BIG', headline: 'cannot start "x": spawn E2BIG' });
  });
});

describe('stderrTail', () => {
  it('keeps the last lines, without trailing blank ones', () => {
    const text = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n\n`;
    const tail = stderrTail(text, 3);
    expect(tail).toBe('line 28\nline 29\nline 30');
    expect(stderrTail('', 3)).toBe('');
  });

  it('bounds the characters of a huge last line', () => {
    expect(stderrTail('x'.repeat(100_000), 12, 4096)).toHaveLength(4096);
  });
});
