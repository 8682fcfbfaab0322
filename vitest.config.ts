import { defineConfig } from 'vitest/config';

// Projects: `unit` (pure, beside the source), `integration` (real processes through the
// built engine in dist/, so `npm test` builds first), `integration-alone` (the same, one file
// at a time), `e2e` (Chromium against browser mode) and `desktop` (the Electron shell under a
// double, and the installer packed against a stand-in Electron: test/desktop/).
const ALONE = [
  'test/integration/process-evidence.test.ts',
  'test/integration/demo-scenarios.test.ts',
  // Judges a foreign process by its state over a watch window (attach): not beside a flood.
  'test/integration/attach.test.ts',
  // 19,000 connections opened flat out: it loads the machine as much as it measures it.
  'test/integration/web-starvation.test.ts',
  // Every demo through \`pipescope check\`, a few at a time: process evidence and budgets.
  'test/integration/check-demos.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // Some unit tests do real work (a 25 MiB redaction, a schema validation, property
          // runs): generous on a loaded 2-core box, where 5 s (the default) was seen to pass.
          testTimeout: 20_000,
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
          setupFiles: ['test/fixtures/isolated-dirs.ts'],
          include: ['test/integration/**/*.test.ts'],
          exclude: ALONE,
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
          // Integration files whose servers burn a core on purpose (CPU-bound tools) or judge
          // by process state: one at a time, after the others, so that neither starves the
          // timing of the other (a spinning server beside a 1 s probe deadline).
          name: 'integration-alone',
          setupFiles: ['test/fixtures/isolated-dirs.ts'],
          include: ALONE,
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          name: 'e2e',
          setupFiles: ['test/fixtures/isolated-dirs.ts'],
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // One browser at a time on a 2-core machine.
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
      {
        test: {
          name: 'desktop',
          include: ['test/desktop/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          // The package test packs the app once (electron-builder, ~20-40 s) in its beforeAll.
          hookTimeout: 240_000,
          // Shells with real sessions, and a pack that takes both cores: one file at a time.
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
