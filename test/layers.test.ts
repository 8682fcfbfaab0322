/**
 * Layering, checked mechanically (STYLE.md "Layout: folders say where code runs"): every
 * production source belongs to a layer named by its folder, and may import only the layers
 * listed for it, the npm packages listed for it, and Node's built-ins where it runs on Node.
 * Imports are read with the TypeScript parser (static, type-only, re-exports, dynamic import(),
 * require()), so neither a multi-line import nor one inside a comment or a string fools it.
 * Modelled on VS Code's build/lib/layersChecker.ts, which checks its layers by folder name.
 *
 * Also: no import circle between production files, nothing imports 'electron' at run time but
 * electron/main/main.ts and the preload, nothing imports those two, and no test imports
 * 'electron' at all. A failure names the file, the import and the rule it breaks.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// ---- reading imports ----

interface ImportRef {
  /** The module named; null when it is computed (a template or a variable): not checkable. */
  spec: string | null;
  /** `import type …` / `export type … from`: erased at run time. */
  typeOnly: boolean;
  line: number;
}

/** Every module a source names: imports, re-exports, import types, import() and require(). */
function importsOf(fileName: string, text: string): ImportRef[] {
  const kind = fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const out: ImportRef[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean, node: ts.Node): void => {
    if (!spec) return;
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    const literal = ts.isStringLiteral(spec) || ts.isNoSubstitutionTemplateLiteral(spec);
    out.push({ spec: literal ? spec.text : null, typeOnly, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly === true, node);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly, node);
    } else if (ts.isImportEqualsDeclaration(node)) {
      const ref = node.moduleReference;
      if (ts.isExternalModuleReference(ref)) add(ref.expression, node.isTypeOnly, node);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal as ts.Expression, true, node);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire =
        (ts.isIdentifier(callee) && callee.text === 'require') ||
        // createRequire(import.meta.url)(…): a require under another name
        (ts.isCallExpression(callee) &&
          ts.isIdentifier(callee.expression) &&
          callee.expression.text === 'createRequire');
      if (isImport || isRequire) add(node.arguments[0], false, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));

function isBuiltin(spec: string): boolean {
  return spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]);
}

/** The npm package a bare specifier names (`@scope/name` or `name`). */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/** The repository file a relative specifier names, or null (a generated or missing file). */
function resolveRelative(from: string, spec: string, exists: (f: string) => boolean): string {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  const candidates = [
    ...SOURCE_EXTENSIONS.map((e) => stem + e),
    base,
    ...SOURCE_EXTENSIONS.map((e) => `${base}/index${e}`),
  ];
  return candidates.find(exists) ?? base;
}

// ---- the layers ----

interface Layer {
  name: string;
  /** Files of the layer: a folder (ending in /) or one file. */
  owns: string;
  /** Layers it may import (its own always). */
  may: string[];
  /** npm packages it may import. */
  packages: string[];
  /** Whether it runs on Node (may import node:*). */
  node: boolean;
  why: string;
}

const LAYERS: Layer[] = [
  {
    name: 'shared',
    owns: 'shared/',
    may: [],
    packages: ['zod'],
    node: false,
    why: 'shared/ is pure TypeScript used by both sides: no DOM, no Node, no other folder',
  },
  {
    name: 'renderer',
    owns: 'renderer/',
    may: ['shared'],
    packages: ['react', 'react-dom', 'recharts', 'zustand'],
    node: false,
    why: 'the renderer runs in a sandboxed page: it talks to the host through HostApi only',
  },
  {
    name: 'paths',
    owns: 'electron/paths.ts',
    may: [],
    packages: [],
    node: true,
    why: 'paths.ts only knows where built files are',
  },
  {
    name: 'native-binary',
    owns: 'electron/native-binary.ts',
    may: [],
    packages: [],
    node: true,
    why: 'whether the built pipescope-relay can start here: read by the tap and by tap install',
  },
  {
    name: 'wire',
    owns: 'electron/wire/',
    may: ['shared'],
    packages: [],
    node: true,
    why: 'wire/ is what both threads share, stateless: it depends on neither side',
  },
  {
    name: 'worker/read',
    owns: 'electron/worker/read/',
    may: ['shared', 'wire'],
    packages: [],
    node: true,
    why: 'the read core (framer, classifier, scanner) runs on the worker thread and knows nothing of the rest of it',
  },
  {
    name: 'worker',
    owns: 'electron/worker/',
    may: ['shared', 'wire', 'worker/read'],
    packages: [],
    node: true,
    why: 'the worker thread owns the pipes; it never loads main-thread code',
  },
  {
    name: 'demo-servers',
    owns: 'electron/demo-servers/',
    may: ['shared', 'paths'],
    packages: ['@modelcontextprotocol/sdk', 'zod'],
    node: true,
    why: 'demo servers are child processes: they load nothing of Pipescope but the catalog',
  },
  {
    name: 'engine/transport',
    owns: 'electron/engine/transport/',
    may: ['shared', 'wire', 'paths'],
    packages: [],
    node: true,
    why: "transport/ is the worker's other end on the main thread, below the session",
  },
  {
    name: 'engine/config',
    owns: 'electron/engine/config/',
    may: ['shared', 'paths', 'native-binary'],
    packages: [],
    node: true,
    why: 'config/ reads and edits host config files (tap install asks paths where bin/ is)',
  },
  {
    name: 'engine/process',
    owns: 'electron/engine/process/',
    may: ['shared'],
    packages: [],
    node: true,
    why: "process/ samples the server's process tree from the system; it knows nothing of sessions",
  },
  {
    name: 'engine/session',
    owns: 'electron/engine/session/',
    may: ['shared', 'wire', 'engine/transport', 'engine/process'],
    packages: ['@modelcontextprotocol/sdk'],
    node: true,
    why: 'a session sits on its transport; hosts and traces sit on sessions',
  },
  {
    name: 'engine/trace',
    owns: 'electron/engine/trace/',
    may: ['shared', 'wire', 'engine/transport', 'engine/process', 'engine/session'],
    packages: [],
    node: true,
    why: 'traces record, read and replay sessions; the host sits on them',
  },
  {
    name: 'engine/attach',
    owns: 'electron/engine/attach/',
    may: ['shared', 'engine/process', 'engine/session', 'engine/config'],
    packages: [],
    node: true,
    why: 'attach applies process evidence and the findings of a session to a process another host started; the CLI and the host sit on it',
  },
  {
    name: 'engine/check',
    owns: 'electron/engine/check/',
    may: ['shared', 'engine/transport', 'engine/session'],
    packages: ['@modelcontextprotocol/sdk'],
    node: true,
    why: "`pipescope check`'s battery runs sessions of the engine; the CLI sits on it",
  },
  {
    name: 'engine/host',
    owns: 'electron/engine/host/',
    may: [
      'shared',
      'wire',
      'paths',
      'demo-servers',
      'engine/transport',
      'engine/process',
      'engine/session',
      'engine/trace',
      'engine/config',
      'engine/attach',
    ],
    packages: [],
    node: true,
    why: 'the host (SessionManager) is the top of the engine: only web, main and cli sit on it',
  },
  {
    name: 'web',
    owns: 'electron/web/',
    may: ['shared', 'paths', 'engine/host', 'engine/trace'],
    packages: ['ws'],
    node: true,
    why: 'browser mode serves the renderer and bridges its socket to the host',
  },
  {
    name: 'tap',
    owns: 'electron/tap/',
    may: ['shared', 'wire', 'native-binary', 'engine/session', 'engine/trace', 'engine/host'],
    packages: [],
    node: true,
    why: "`pipescope tap`: its relay loads only wire/ (start-up is the host's server's); its observer thread sits on the engine",
  },
  {
    name: 'preload',
    owns: 'electron/preload/',
    may: ['shared'],
    packages: ['electron'],
    node: false,
    why: 'the sandboxed preload is one bundle whose only import is electron',
  },
  {
    name: 'main',
    owns: 'electron/main/',
    may: ['shared', 'paths', 'engine/host', 'web'],
    packages: ['electron'],
    node: true,
    why: 'the Electron shell wires the window to the host',
  },
  {
    name: 'cli',
    owns: 'electron/cli/',
    may: [
      'shared',
      'paths',
      'demo-servers',
      'engine/session',
      'engine/trace',
      'engine/attach',
      'engine/config',
      'engine/check',
      'engine/host',
      'web',
      'main',
    ],
    packages: ['commander'],
    node: true,
    why: 'the CLI is a host of the engine, on top',
  },
];

/** The most specific layer owning `file` (electron/worker/read/ before electron/worker/). */
function layerOf(file: string, layers: Layer[] = LAYERS): Layer | null {
  let best: Layer | null = null;
  for (const l of layers) {
    const owns = l.owns.endsWith('/') ? file.startsWith(l.owns) : file === l.owns;
    if (owns && (!best || l.owns.length > best.owns.length)) best = l;
  }
  return best;
}

const RUNTIME_ELECTRON = new Set(['electron/main/main.ts', 'electron/preload/preload.ts']);

interface Violation {
  file: string;
  line: number;
  spec: string;
  rule: string;
}

/** What is wrong with one file's imports. */
function checkFile(
  file: string,
  refs: ImportRef[],
  exists: (f: string) => boolean,
  layers: Layer[] = LAYERS,
): Violation[] {
  const out: Violation[] = [];
  const layer = layerOf(file, layers);
  const bad = (r: ImportRef, rule: string) =>
    out.push({ file, line: r.line, spec: r.spec ?? '(computed)', rule });
  for (const r of refs) {
    const spec = r.spec;
    if (spec === null) {
      bad(r, 'name a module with a string literal, so that its layer can be checked');
      continue;
    }
    if (spec === 'electron' || spec.startsWith('electron/')) {
      if (!layer?.packages.includes('electron'))
        bad(r, 'only electron/main and electron/preload may import electron');
      else if (!r.typeOnly && !RUNTIME_ELECTRON.has(file))
        bad(r, 'only main.ts and preload.ts import electron at run time (the rest take types)');
      continue;
    }
    if (!layer) continue;
    if (spec.startsWith('.')) {
      const target = resolveRelative(file, spec, exists);
      if (RUNTIME_ELECTRON.has(target))
        bad(r, `nothing imports ${target}: it would load electron into its importer`);
      const to = layerOf(target, layers);
      if (!to) {
        bad(r, `${target} belongs to no layer`);
        continue;
      }
      if (to !== layer && !layer.may.includes(to.name))
        bad(
          r,
          `${layer.name} may import ${[layer.name, ...layer.may].join(', ')}; not ${to.name} (${layer.why})`,
        );
      continue;
    }
    if (isBuiltin(spec)) {
      if (!layer.node) bad(r, `${layer.name} does not run on Node: no ${spec} (${layer.why})`);
      else if (!spec.startsWith('node:')) bad(r, `Node built-ins are imported as node:${spec}`);
      continue;
    }
    if (!layer.packages.includes(packageOf(spec)))
      bad(
        r,
        `${layer.name} may import the packages ${layer.packages.join(', ') || '(none)'}; not ${packageOf(spec)}`,
      );
  }
  return out;
}

/** Import circles among `graph`'s files (each reported once, from its smallest file). */
function circles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (!graph.has(g)) continue;
      if (state.get(g) === 'open') {
        const cycle = stack.slice(stack.indexOf(g));
        const start = cycle.indexOf([...cycle].sort()[0]);
        const norm = [...cycle.slice(start), ...cycle.slice(0, start)];
        found.set(norm.join(' -> '), norm);
      } else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return [...found.values()];
}

// ---- the repository ----

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(ts|tsx|mts|cts|mjs|js|jsx|cjs)$/.test(f));
const trackedSet = new Set(tracked);
const exists = (f: string): boolean => trackedSet.has(f);
const isTest = (f: string): boolean =>
  /\.test\.tsx?$/.test(f) || f.startsWith('test/') || f.endsWith('.d.mts');
const production = tracked.filter(
  (f) =>
    (f.startsWith('electron/') || f.startsWith('renderer/') || f.startsWith('shared/')) &&
    !isTest(f) &&
    !f.startsWith('electron/wasm/'),
);
const refsOf = new Map(
  tracked.map((f) => [f, importsOf(f, readFileSync(path.join(ROOT, f), 'utf8'))] as const),
);

describe('the import reader', () => {
  it('finds static, type-only, re-exported, dynamic, required and import-type modules', () => {
    const refs = importsOf(
      'x.ts',
      [
        "import { a } from './a.js';",
        "import type { B } from './b.js';",
        "import {\n  c,\n  type D,\n} from './c.js';",
        "import './side.js';",
        "export { e } from './e.js';",
        "export type { F } from './f.js';",
        "const g = await import('./g.js');",
        "const h = require('./h.js');",
        "let i: import('./i.js').I;",
        "// import { no } from './comment.js';",
        'const s = "import { no } from \'./string.js\'";',
      ].join('\n'),
    );
    expect(refs.map((r) => [r.spec, r.typeOnly])).toEqual([
      ['./a.js', false],
      ['./b.js', true],
      ['./c.js', false],
      ['./side.js', false],
      ['./e.js', false],
      ['./f.js', true],
      ['./g.js', false],
      ['./h.js', false],
      ['./i.js', true],
    ]);
  });
});

describe('the layer rules (on made-up files)', () => {
  const files = new Set([
    'electron/worker/a.ts',
    'electron/worker/read/r.ts',
    'electron/engine/session/s.ts',
    'electron/engine/host/h.ts',
    'electron/wire/w.ts',
    'shared/x.ts',
    'renderer/app/y.tsx',
    'electron/main/main.ts',
  ]);
  const has = (f: string) => files.has(f);
  const check = (file: string, line: string) => checkFile(file, importsOf(file, line), has);

  it('refuses an import up or across, naming the rule', () => {
    expect(check('electron/worker/a.ts', "import { S } from '../engine/session/s.js';")).toEqual([
      expect.objectContaining({
        rule: expect.stringMatching(/^worker may import .*; not engine\/session/),
      }),
    ]);
    expect(check('electron/engine/session/s.ts', "import '../host/h.js';")[0].rule).toMatch(
      /engine\/session may import .*; not engine\/host/,
    );
    expect(check('electron/worker/read/r.ts', "import '../a.js';")[0].rule).toMatch(
      /worker\/read may import .*; not worker \(/,
    );
    expect(check('shared/x.ts', "import '../electron/wire/w.js';")[0].rule).toMatch(/shared/);
  });

  it('lets a layer import downward and itself', () => {
    expect(check('electron/engine/host/h.ts', "import '../session/s.js';")).toEqual([]);
    expect(check('electron/worker/a.ts', "import './read/r.js'; import '../wire/w.js';")).toEqual(
      [],
    );
  });

  it('keeps Node out of shared/ and the renderer, and electron in main and the preload', () => {
    // Spelled apart, so that no scan of this repository takes the examples for real imports.
    const ELECTRON = `'${['elec', 'tron'].join('')}'`;
    expect(check('renderer/app/y.tsx', "import fs from 'node:fs';")[0].rule).toMatch(/Node/);
    expect(check('shared/x.ts', "import { EventEmitter } from 'events';")[0].rule).toMatch(/Node/);
    expect(check('electron/engine/host/h.ts', `import { app } from ${ELECTRON};`)[0].rule).toMatch(
      /only electron\/main and electron\/preload/,
    );
    expect(
      check('electron/engine/host/h.ts', `import type { App } from ${ELECTRON};`),
    ).toHaveLength(1);
    expect(check('electron/main/main.ts', `import { app } from ${ELECTRON};`)).toEqual([]);
    expect(
      check('electron/engine/host/h.ts', "import '../../main/main.js';").map((v) => v.rule),
    ).toContainEqual(expect.stringMatching(/nothing imports electron\/main\/main.ts/));
  });

  it('refuses a module named by a computed string, and sees createRequire', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal, as source text
    expect(check('shared/x.ts', 'const m = await import(`node:${name}`);')[0].rule).toMatch(
      /string literal/,
    );
    expect(check('electron/worker/a.ts', 'require(name);')[0].spec).toBe('(computed)');
    expect(
      check('renderer/app/y.tsx', "createRequire(import.meta.url)('node:fs');")[0].rule,
    ).toMatch(/Node/);
  });

  it('refuses a package a layer does not list, and bare built-ins', () => {
    expect(check('renderer/app/y.tsx', "import ws from 'ws';")[0].rule).toMatch(/not ws/);
    expect(check('electron/worker/a.ts', "import path from 'path';")[0].rule).toMatch(/node:path/);
  });

  it('finds circles', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });
});

describe('the repository', () => {
  it('reads the sources it checks', () => {
    expect(production.length).toBeGreaterThan(150);
    expect(production).toContain('electron/worker/read/framer.ts');
    expect(production).toContain('renderer/app/App.tsx');
  });

  it('every production source belongs to a layer', () => {
    expect(production.filter((f) => !layerOf(f))).toEqual([]);
  });

  it('no production import breaks a layer rule', () => {
    const violations = production.flatMap((f) => checkFile(f, refsOf.get(f) ?? [], exists));
    expect(violations.map((v) => `${v.file}:${v.line} imports ${v.spec}: ${v.rule}`)).toEqual([]);
  });

  it('docs/architecture.md shows the same table of layers as this test enforces', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const shown = new Map<string, string[]>();
    for (const m of doc.matchAll(/^\| `([^`]+)` \| [^|]+ \| ([^|]+) \|/gm))
      shown.set(m[1], m[2].trim() === '—' ? [] : m[2].split(',').map((x) => x.trim()));
    for (const l of LAYERS) expect(shown.get(l.owns), l.owns).toEqual(l.may);
  });

  it('main.ts and the preload do load electron at run time (the rule above is not vacuous)', () => {
    for (const f of RUNTIME_ELECTRON)
      expect(
        refsOf.get(f)?.some((r) => r.spec === 'electron' && !r.typeOnly),
        f,
      ).toBe(true);
  });

  it('no import circle between production files', () => {
    const graph = new Map(
      production.map((f) => [
        f,
        (refsOf.get(f) ?? []).flatMap((r) =>
          r.spec?.startsWith('.') ? [resolveRelative(f, r.spec, exists)] : [],
        ),
      ]),
    );
    expect(circles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('no test loads electron (tests run in plain Node: types only) nor main.ts or the preload', () => {
    const offenders = tracked
      .filter(isTest)
      .flatMap((f) =>
        (refsOf.get(f) ?? [])
          .filter(
            (r) =>
              r.spec !== null &&
              ((!r.typeOnly && (r.spec === 'electron' || r.spec.startsWith('electron/'))) ||
                (r.spec.startsWith('.') &&
                  RUNTIME_ELECTRON.has(resolveRelative(f, r.spec, exists)))),
          )
          .map((r) => `${f}:${r.line} ${r.spec}`),
      );
    expect(offenders).toEqual([]);
  });
});
