import { defineConfig } from 'vitest/config';

// Two projects: `unit` (pure, beside the source) and `integration` (real processes
// through the built engine in dist/, so `npm test` builds first).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'electron/**/*.test.ts',
            'shared/**/*.test.ts',
            'renderer/**/*.test.{ts,tsx}',
            'test/*.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // Real child processes and worker threads: keep the 2-core machine honest.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // One browser at a time on a 2-core machine.
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
