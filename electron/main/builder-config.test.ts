/**
 * The packaging config, checked without packing (test/desktop/package.test.ts packs for real)
 * the way electron-builder itself reads it — its own loader (YAML) and JSON schema — plus
 * what the schema cannot know: targets, fuses, entitlements, icons, and that every file the demo
 * servers and the transport worker import at run time is unpacked from the asar archive.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';
import { describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '../demo-servers/catalog.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const config = await getConfig(ROOT, path.join(ROOT, 'electron-builder.yml'), null);
const asarUnpack = (config.asarUnpack ?? []) as string[];

function targets(platform: unknown): string[] {
  const t = (platform as { target?: unknown } | null)?.target;
  const list = Array.isArray(t) ? t : [t];
  return list.map((x) => (typeof x === 'string' ? x : (x as { target: string }).target));
}

function pngSize(file: string): { width: number; height: number } {
  const buf = readFileSync(file);
  expect(buf.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('electron-builder.yml', () => {
  it('passes electron-builder 26 schema validation', async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('names the app and its resources', () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/);
    expect(config.productName).toBe('Pipescope');
    expect(config.directories?.buildResources).toBe('build');
  });

  it('packs the built app, without maps, declarations or tests', () => {
    // getConfig normalizes `files` to [{ filter: [...] }]
    const files = (config.files as { filter: string[] }[]).flatMap((f) => f.filter);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/**/*']));
    expect(files).toEqual(expect.arrayContaining(['!**/*.map', '!**/*.d.ts', '!**/*.test.js']));
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.main).toBe('dist/electron/main/main.js');
  });

  it('builds AppImage + deb, dmg and nsis', () => {
    expect(targets(config.linux)).toEqual(['AppImage', 'deb']);
    expect(config.linux?.category).toBe('Development');
    expect(targets(config.mac)).toEqual(['dmg']);
    expect(targets(config.win)).toEqual(['nsis']);
  });

  it('signs macOS with the hardened runtime and minimal entitlements', () => {
    expect(config.mac?.hardenedRuntime).toBe(true);
    const file = path.join(ROOT, config.mac?.entitlements ?? 'missing');
    expect(config.mac?.entitlements).toBe('build/entitlements.mac.plist');
    const keys = [...readFileSync(file, 'utf8').matchAll(/<key>([^<]+)<\/key>/g)].map((m) => m[1]);
    expect(keys).toEqual([
      'com.apple.security.cs.allow-jit',
      'com.apple.security.cs.allow-unsigned-executable-memory',
    ]);
  });

  it('flips the fuses build/FUSES.md documents', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: true,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true); // onlyLoadAppFromAsar needs the archive
    const doc = readFileSync(path.join(ROOT, 'build', 'FUSES.md'), 'utf8');
    for (const fuse of [
      'RunAsNode',
      'EnableNodeOptionsEnvironmentVariable',
      'EnableNodeCliInspectArguments',
      'EnableEmbeddedAsarIntegrityValidation',
      'OnlyLoadAppFromAsar',
    ]) {
      expect(doc).toContain(`\`${fuse}\``);
    }
  });

  it('has icons big enough for every platform', () => {
    for (const p of [config.linux, config.mac, config.win]) expect(p?.icon).toBe('build/icon.png');
    expect(pngSize(path.join(ROOT, 'build', 'icon.png'))).toEqual({ width: 1024, height: 1024 });
    expect(pngSize(path.join(ROOT, 'assets', 'icon.png'))).toEqual({ width: 256, height: 256 });
    expect(readFileSync(path.join(ROOT, 'assets', 'icon.svg'), 'utf8')).toContain('<svg');
  });

  it('unpacks the demo servers and the worker', () => {
    expect(asarUnpack).toEqual(
      expect.arrayContaining(['dist/electron/demo-servers/**', 'dist/electron/worker/**']),
    );
    for (const p of asarUnpack)
      expect(p, 'only folder/** patterns are used').toMatch(/^[\w@./-]+\/\*\*$/);
  });
});

// ---- the run-time import closure of what runs outside the archive ----

const IMPORT_PATTERNS = [
  /(?:^|[;\s})])(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g,
  /(?:^|[;\s])import\s*['"]([^'"]+)['"]/g,
  /import\(\s*['"]([^'"]+)['"]\s*\)/g,
  /require\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function existingFile(candidate: string): string | null {
  for (const c of [
    candidate,
    `${candidate}.js`,
    `${candidate}.cjs`,
    path.join(candidate, 'index.js'),
  ]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/** Files reachable by static imports/requires from the entries (Node resolution for packages). */
function importClosure(entries: string[]): { files: Set<string>; unresolved: string[] } {
  const files = new Set<string>();
  const unresolved: string[] = [];
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    if (!/\.[cm]?js$/.test(file)) return;
    const source = readFileSync(file, 'utf8');
    for (const pattern of IMPORT_PATTERNS) {
      for (const [, spec] of source.matchAll(pattern)) {
        if (isBuiltin(spec)) continue;
        let target: string | null = null;
        if (spec.startsWith('.')) target = existingFile(path.resolve(path.dirname(file), spec));
        else {
          try {
            target = createRequire(file).resolve(spec);
          } catch {
            target = null;
          }
        }
        if (target) visit(target);
        // JSDoc `import('./types/index')` in comments names declaration files: nothing runs.
        else if (
          spec.startsWith('.') &&
          existsSync(path.resolve(path.dirname(file), `${spec}.d.ts`))
        )
          continue;
        else unresolved.push(`${spec} <- ${path.relative(ROOT, file)}`);
      }
    }
  };
  for (const e of entries) visit(e);
  return { files, unresolved };
}

const DEMO_DIR = path.join(ROOT, 'dist', 'electron', 'demo-servers');
const WORKER = path.join(ROOT, 'dist', 'electron', 'worker', 'entry.js');
const built = existsSync(DEMO_DIR) && existsSync(WORKER);

describe.skipIf(!built)('asarUnpack covers the run-time closure (needs `npm run build`)', () => {
  it('every file the demo servers and the worker load is unpacked', () => {
    // The servers the catalog runs (launch.js beside them is host-side: never run unpacked).
    const demos = DEMO_CATALOG.map((d) => path.join(DEMO_DIR, `${d.id}.js`));
    const { files, unresolved } = importClosure([WORKER, ...demos]);
    expect(unresolved).toEqual([]);
    expect(files.size).toBeGreaterThan(demos.length);
    const prefixes = asarUnpack.map((p) => p.slice(0, -'**'.length));
    const missing = [...files]
      .map((f) => path.relative(ROOT, f).split(path.sep).join('/'))
      .filter((rel) => !prefixes.some((prefix) => rel.startsWith(prefix)));
    expect(missing).toEqual([]);
  });

  it('the JSON scanner the worker reads from disk (not an import) is unpacked and packed', () => {
    const wasm = 'dist/electron/worker/read/json-scan.wasm';
    expect(existsSync(path.join(ROOT, wasm))).toBe(true);
    const prefixes = asarUnpack.map((p) => p.slice(0, -'**'.length));
    expect(prefixes.some((prefix) => wasm.startsWith(prefix))).toBe(true);
    const packed = (config.files as { filter: string[] }[]).flatMap((f) => f.filter);
    expect(packed).toContain('dist/**/*');
    expect(packed.filter((f) => f.startsWith('!')).some((f) => /wasm/.test(f))).toBe(false);
  });
});
if (!built)
  console.warn('builder-config: dist/ is not built; skipped the asarUnpack closure check');
