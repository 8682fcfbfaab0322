import { defineConfig } from 'vite';

// The preload bundle: one CommonJS file (a sandboxed preload cannot load ESM or local modules),
// 'electron' left external, shared/ types erased. Output: dist/preload/preload.cjs.
export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist/preload',
    emptyOutDir: true,
    target: 'chrome140',
    minify: false,
    sourcemap: false,
    copyPublicDir: false,
    lib: {
      entry: 'electron/preload/preload.ts',
      formats: ['cjs'],
      fileName: () => 'preload.cjs',
    },
    rolldownOptions: {
      external: ['electron'],
    },
  },
});
