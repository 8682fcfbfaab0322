import { defineConfig } from 'vite';

// The renderer bundle: React + zustand + recharts, served by Electron (file) or browser mode.
export default defineConfig({
  root: 'renderer',
  base: './',
  publicDir: false,
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'chrome130',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  oxc: { jsx: { runtime: 'automatic' } },
});
