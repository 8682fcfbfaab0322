import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTable } from './process-table.js';

describe('processTable', () => {
  it('says "unknown" (null) where it has nothing to read, never a guess', () => {
    const t = processTable('win32');
    expect(t.groupMembers(1)).toBeNull();
    expect(t.exists(process.pid)).toBeNull();
    expect(t.stdioOf(process.pid)).toBeNull();
    expect(t.holdersOf(['pipe:[1]'], 0)).toBeNull();
  });

  it.runIf(process.platform === 'linux')(
    'on Linux: a detached child is its group, its stdio names pipes or sockets we hold too',
    async () => {
      const t = processTable('linux');
      const child = spawn('sleep', ['30'], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
      await new Promise((r) => child.once('spawn', r));
      const pid = child.pid as number;
      try {
        expect(t.exists(pid)).toBe(true);
        expect(t.groupMembers(pid)?.map((p) => [p.pid, p.command])).toEqual([[pid, 'sleep 30']]);
        const stdio = t.stdioOf(pid) ?? [];
        expect(stdio[0]).toMatch(/^(pipe|socket):\[\d+\]$/);
        // Only the child holds its own ends of those (ours are the other ends, or excluded).
        expect(t.holdersOf(stdio, process.pid)?.map((p) => p.pid)).toEqual([pid]);
      } finally {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
      expect(t.exists(pid)).toBe(false);
    },
  );
});
