/**
 * Layering (STYLE.md "folders say where code runs"): only electron/main and electron/preload may
 * import 'electron', and inside electron/main only main.ts does at run time (the rest take types
 * only, so they load in plain Node tests without triggering the electron package's download).
 * The built renderer bundle must contain no Node built-ins or Electron, and the preload bundle
 * must be one CommonJS file whose only dependency is 'electron'.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP_DIRS = new Set(['node_modules', 'dist', 'release', '.git', 'coverage']);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) {
        sourceFiles(path.join(dir, entry.name), out);
      }
    } else if (SOURCE.test(entry.name)) out.push(path.join(dir, entry.name));
  }
  return out;
}

interface ElectronImport {
  typeOnly: boolean;
  text: string;
}

/** Every import/require/export-from of 'electron' (or 'electron/…') in a source text. */
function electronImports(source: string): ElectronImport[] {
  const found: ElectronImport[] = [];
  const patterns = [
    // the clause between keyword and `from` is names, braces, commas, `* as`: no prose
    /^\s*(import|export)\s+(type\s+)?[\w$*{}\s,]*?\bfrom\s*['"]electron(?:\/[^'"]*)?['"]/gm,
    /\bimport\s*['"]electron(?:\/[^'"]*)?['"]/g,
    /\b(?:require|import)\s*\(\s*['"]electron(?:\/[^'"]*)?['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const m of source.matchAll(pattern)) {
      found.push({ typeOnly: m[2] !== undefined && m[2].trim() === 'type', text: m[0] });
    }
  }
  return found;
}

const SELF = 'electron/main/boundaries.test.ts'; // its own examples would match
const files = sourceFiles(ROOT)
  .map((f) => path.relative(ROOT, f).split(path.sep).join('/'))
  .filter((f) => f !== SELF);
const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');

describe('the electron import scanner', () => {
  it('finds value, type, side-effect, dynamic and require imports', () => {
    expect(electronImports("import { app } from 'electron';")).toEqual([
      { typeOnly: false, text: "import { app } from 'electron'" },
    ]);
    expect(electronImports('import type { X } from "electron";')[0].typeOnly).toBe(true);
    expect(electronImports("import {\n  app,\n  type Event,\n} from 'electron';")[0].typeOnly).toBe(
      false,
    );
    expect(electronImports("import 'electron';")).toHaveLength(1);
    expect(electronImports("const e = require('electron');")).toHaveLength(1);
    expect(electronImports("await import('electron/main')")).toHaveLength(1);
    expect(electronImports("export { app } from 'electron';")).toHaveLength(1);
    expect(electronImports("import x from 'electron-builder'; const kind = 'electron';")).toEqual(
      [],
    );
  });
});

describe('who may import electron', () => {
  it('scans the repository', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('electron/main/main.ts');
    expect(files).toContain('renderer/app/main.tsx');
  });

  it('nothing outside electron/main and electron/preload imports it', () => {
    const offenders = files.filter(
      (f) =>
        !f.startsWith('electron/main/') &&
        !f.startsWith('electron/preload/') &&
        electronImports(read(f)).length > 0,
    );
    expect(offenders).toEqual([]);
  });

  it('inside electron/main only main.ts imports it at run time; the rest take types only', () => {
    const valueImporters = files.filter(
      (f) =>
        (f.startsWith('electron/main/') || f.startsWith('electron/preload/')) &&
        electronImports(read(f)).some((i) => !i.typeOnly),
    );
    expect(valueImporters.sort()).toEqual(['electron/main/main.ts', 'electron/preload/preload.ts']);
  });

  it('no module imports main.ts or the preload (they would pull electron in)', () => {
    const offenders = files.filter((f) => {
      const text = read(f);
      const sibling =
        f.startsWith('electron/main/') && /from\s*['"]\.\/main(?:\.js)?['"]/.test(text);
      return (
        sibling ||
        /from\s*['"][^'"]*\bmain\/main(?:\.js)?['"]/.test(text) ||
        /from\s*['"][^'"]*\bpreload\/preload(?:\.js)?['"]/.test(text)
      );
    });
    expect(offenders).toEqual([]);
  });
});

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
const PRELOAD_BUNDLE = path.join(ROOT, 'dist', 'preload', 'preload.cjs');

describe.skipIf(!existsSync(RENDERER_ASSETS))('the built renderer bundle (npm run build)', () => {
  it('contains no Node built-ins and no electron', () => {
    const bundles = readdirSync(RENDERER_ASSETS).filter((f) => /\.m?js$/.test(f));
    expect(bundles.length).toBeGreaterThan(0);
    for (const b of bundles) {
      const text = readFileSync(path.join(RENDERER_ASSETS, b), 'utf8');
      expect(forbiddenRuntimeImports(text), b).toEqual([]);
    }
  });
});

describe.skipIf(!existsSync(PRELOAD_BUNDLE))('the built preload bundle (npm run build)', () => {
  it('is one CommonJS file that requires only electron and exposes one object', () => {
    const text = readFileSync(PRELOAD_BUNDLE, 'utf8');
    const requires = [...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(requires).toEqual(['electron']);
    expect(text).not.toMatch(/^\s*(import|export)\s/m);
    expect(text.match(/exposeInMainWorld\(/g)).toHaveLength(1);
    expect(text).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*\)/);
  });
});

if (!existsSync(RENDERER_ASSETS) || !existsSync(PRELOAD_BUNDLE)) {
  console.warn(
    'boundaries: dist/renderer or dist/preload missing; run `npm run build` (npm test does)',
  );
}
