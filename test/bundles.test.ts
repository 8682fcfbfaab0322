/**
 * What the bundles may contain (STYLE.md: the renderer never imports node:* or electron; the
 * sandboxed preload is one CommonJS file whose only import is electron), read from the built
 * files (`npm run build`; `npm test` builds first). The sources' imports are test/layers.test.ts's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));

/** Node built-ins or Electron loaded by a bundle (import, export-from, require, dynamic import). */
function forbiddenRuntimeImports(bundle: string): string[] {
  const names = new Set(['electron', ...BUILTINS]);
  const hits: string[] = [];
  const pattern =
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s*)["'`]([^"'`]+)["'`]/g;
  for (const [text, spec] of bundle.matchAll(pattern)) {
    if (spec.startsWith('node:') || names.has(spec) || spec.startsWith('electron/'))
      hits.push(text);
  }
  return hits;
}

describe('forbiddenRuntimeImports', () => {
  it('catches node: and bare built-ins and electron, not lookalikes', () => {
    expect(forbiddenRuntimeImports('import{a}from"node:fs";')).toHaveLength(1);
    expect(forbiddenRuntimeImports('const p=require("path")')).toHaveLength(1);
    expect(forbiddenRuntimeImports('await import("child_process")')).toHaveLength(1);
    expect(forbiddenRuntimeImports('import"electron";')).toHaveLength(1);
    expect(forbiddenRuntimeImports('x={node:n,kind:"electron"};import{a}from"./chunk.js"')).toEqual(
      [],
    );
  });
});

const RENDERER_ASSETS = path.join(ROOT, 'dist', 'renderer', 'assets');
/** Under CI the bundles must be there (npm test builds them): a missing one fails, never skips. */
const MUST_RUN = process.env.CI === 'true';
const PRELOAD_BUNDLE = path.join(ROOT, 'dist', 'preload', 'preload.cjs');

describe.skipIf(!existsSync(RENDERER_ASSETS) && !MUST_RUN)(
  'the built renderer bundle (npm run build)',
  () => {
    it('contains no Node built-ins and no electron', () => {
      const bundles = readdirSync(RENDERER_ASSETS).filter((f) => /\.m?js$/.test(f));
      expect(bundles.length).toBeGreaterThan(0);
      for (const b of bundles) {
        const text = readFileSync(path.join(RENDERER_ASSETS, b), 'utf8');
        expect(forbiddenRuntimeImports(text), b).toEqual([]);
      }
    });
  },
);

describe.skipIf(!existsSync(PRELOAD_BUNDLE) && !MUST_RUN)(
  'the built preload bundle (npm run build)',
  () => {
    it('is one CommonJS file that requires only electron and exposes one object', () => {
      const text = readFileSync(PRELOAD_BUNDLE, 'utf8');
      const requires = [...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
      expect(requires).toEqual(['electron']);
      expect(text).not.toMatch(/^\s*(import|export)\s/m);
      expect(text.match(/exposeInMainWorld\(/g)).toHaveLength(1);
      expect(text).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*\)/);
    });
  },
);

if (!existsSync(RENDERER_ASSETS) || !existsSync(PRELOAD_BUNDLE)) {
  console.warn(
    'boundaries: dist/renderer or dist/preload missing; run `npm run build` (npm test does)',
  );
}
