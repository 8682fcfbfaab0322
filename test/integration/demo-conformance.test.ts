/**
 * Conformance of the bundled demo servers: each BUILT server (dist/) initializes and lists
 * its tools through the official SDK client, exactly the tools its catalog entry names, and
 * is gone after the client closes it (the SDK client's own stop: stdin close, SIGTERM, SIGKILL).
 * Entries whose point is to misbehave at start-up say so in `conformanceExcluded`.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '../../dist/electron/demo-servers/catalog.js';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import { running } from '../fixtures/processes.js';

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return !running(pid);
}

describe('demo servers: SDK client conformance', () => {
  const included = DEMO_CATALOG.filter((s) => s.conformanceExcluded === undefined);

  it('covers every scenario not explicitly excluded', () => {
    expect(included.length).toBeGreaterThan(0);
    for (const s of DEMO_CATALOG) {
      if (s.conformanceExcluded !== undefined)
        expect(s.conformanceExcluded.length).toBeGreaterThan(10);
    }
  });

  for (const scenario of included) {
    it(`${scenario.id}: initializes, lists its tools, stops`, async () => {
      const { command, args } = demoCommand(scenario.id, {});
      const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
      // Drain stderr: an unread pipe would stall servers that log a lot (stderr-flood).
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString('utf8');
      });
      const client = new Client({ name: 'demo-conformance', version: '1.0.0' });
      let pid: number | null = null;
      try {
        await client.connect(transport);
        pid = transport.pid;
        expect(client.getServerVersion()?.name).toBe(`pipescope-demo-${scenario.id}`);
        expect(client.getServerCapabilities()?.tools).toBeDefined();
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([...scenario.tools].sort());
        for (const tool of tools) {
          expect(tool.inputSchema.type).toBe('object');
          expect(tool.description?.length ?? 0).toBeGreaterThan(0);
        }
        expect(stderr).toContain(`[${scenario.id}] ready`);
      } finally {
        await client.close();
      }
      expect(pid).not.toBeNull();
      if (pid !== null) expect(await waitGone(pid, 2000)).toBe(true);
    });
  }
});
