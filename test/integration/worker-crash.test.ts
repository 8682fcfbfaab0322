/**
 * HARDENING.md 9: if the transport worker dies, the session says so and the server does not
 * outlive it (nobody would drain its pipes). The worker is killed from outside, as an
 * out-of-memory abort or a crash would. The killed server stays a zombie until this process
 * exits (its reaper was the worker's event loop); it holds nothing but a pid entry.
 */
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers, running } from '../fixtures/processes.js';
import {
  expectNothingLeftBehind,
  startDemo,
  stopAllSessions,
  waitFor,
  withTimeout,
} from './helpers.js';

afterEach(stopAllSessions);

describe('transport worker failure', () => {
  it('kills the server group, reports the failure and stops the session', async () => {
    const session = await startDemo('ignores-sigterm', { grandchild: 'true' });
    const pid = session.pid ?? -1;
    await waitFor(() => groupMembers(pid).length >= 2, 5000, 'the grandchild to start');
    // Reach the private worker on purpose: nothing public may kill it.
    const transport = (session as unknown as { transport: { worker: Worker } }).transport;
    await transport.worker.terminate();
    await withTimeout(
      new Promise<void>((resolve) => {
        if (session.state === 'stopped') resolve();
        else session.on('state', (s) => s === 'stopped' && resolve());
      }),
      5000,
      'the session to stop',
    );
    expect(session.stderr.text()).toMatch(/\[pipescope\] transport worker exited/);
    await waitFor(() => !running(pid) && groupMembers(pid).length === 0, 5000, 'the group to die');
  });

  it('leaves nothing behind', () => {
    expectNothingLeftBehind();
  });
});
