import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import {
  HOST_PROFILE_IDS,
  HOST_PROFILES,
  hostProfile,
  hostsBroken,
  profileSettings,
} from './host-profiles.js';
import { auditResult, bytesOnlyAudit } from './result-audit.js';
import { parseSessionConfig } from './session-config.js';

const MiB = 1024 * 1024;

describe('host profiles', () => {
  it('has one profile per id, each number with a source', () => {
    expect(HOST_PROFILES.map((p) => p.id)).toEqual([...HOST_PROFILE_IDS]);
    for (const p of HOST_PROFILES) {
      for (const s of [p.transportCap, p.requestTimeout, p.resultLimit, ...p.notes]) {
        if (s === null) continue;
        expect(s.source.length, `${p.id} source`).toBeGreaterThan(10);
        expect(['package', 'source', 'documented', 'reported']).toContain(s.status);
      }
    }
  });

  it("holds the TypeScript SDK's own constants, read from the installed package", () => {
    const sdk = hostProfile('ts-sdk');
    expect(sdk.transportCap?.value).toEqual({
      bytes: STDIO_DEFAULT_MAX_BUFFER_SIZE,
      past: 'terminate',
    });
    expect(sdk.requestTimeout?.value).toBe(DEFAULT_REQUEST_TIMEOUT_MSEC);
  });

  it('applies a profile under the flags given', () => {
    expect(profileSettings('ts-sdk')).toEqual({
      maxFrameBytes: 10 * MiB,
      onOversize: 'terminate',
      requestTimeoutMs: 60_000,
    });
    const c = parseSessionConfig({ command: 'x', hostProfile: 'ts-sdk', onOversize: 'discard' });
    expect(c).toMatchObject({
      maxFrameBytes: 10 * MiB,
      onOversize: 'discard',
      requestTimeoutMs: 60_000,
    });
    expect(
      parseSessionConfig({ command: 'x', hostProfile: 'claude-desktop' }).resultBudgetBytes,
    ).toBe(MiB);
    // No profile: the defaults (128 MiB, discard, a 1 MiB result budget).
    expect(parseSessionConfig({ command: 'x' })).toMatchObject({
      maxFrameBytes: 128 * MiB,
      onOversize: 'discard',
      resultBudgetBytes: MiB,
      hostProfile: null,
    });
  });

  it('names the hosts a 42 MiB answer breaks, and none for a small one', () => {
    const text = 'x'.repeat(1000);
    const small = auditResult('tools/call', { content: [{ type: 'text', text }] }, 1100);
    expect(hostsBroken(small)).toEqual([]);
    const large = bytesOnlyAudit('tools/call', 42 * MiB, 'test');
    expect(hostsBroken(large).map((b) => b.host)).toEqual([
      'ts-sdk',
      'claude-desktop',
      'claude-code',
    ]);
    // 30,000 tokens of text in 120 KB: only Claude Code's token cap.
    const tokens = auditResult(
      'tools/call',
      { content: [{ type: 'text', text: 'y'.repeat(120_000) }] },
      120_100,
    );
    expect(hostsBroken(tokens).map((b) => b.host)).toEqual(['claude-code']);
  });
});
