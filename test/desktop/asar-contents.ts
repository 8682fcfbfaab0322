/**
 * Reading a packed app: the entries of an app.asar (from its header, via @electron/asar), an
 * install laid out the way Electron reads one (extractInstall), the JavaScript import closure
 * of files inside it (what each entry point loads at run time), and a demo server run from it.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { extractAll, getRawHeader } from '@electron/asar';

export interface AsarEntry {
  /** Path inside the archive, with '/' separators, no leading slash. */
  path: string;
  kind: 'file' | 'dir' | 'link';
  size: number;
  /** Stored beside the archive, in app.asar.unpacked (asarUnpack). */
  unpacked: boolean;
}

interface HeaderNode {
  files?: Record<string, HeaderNode>;
  size?: number;
  unpacked?: boolean;
  link?: string;
}

/** Every entry of `archive`, depth first. */
export function asarEntries(archive: string): AsarEntry[] {
  const out: AsarEntry[] = [];
  const walk = (node: HeaderNode, prefix: string): void => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const p = prefix ? `${prefix}/${name}` : name;
      if (child.files) {
        out.push({ path: p, kind: 'dir', size: 0, unpacked: child.unpacked === true });
        walk(child, p);
      } else if (child.link !== undefined) {
        out.push({ path: p, kind: 'link', size: 0, unpacked: child.unpacked === true });
      } else {
        out.push({
          path: p,
          kind: 'file',
          size: child.size ?? 0,
          unpacked: child.unpacked === true,
        });
      }
    }
  };
  walk(getRawHeader(archive).header as HeaderNode, '');
  return out;
}

/**
 * An install as Electron reads it, for plain Node: app.asar extracted into a real folder named
 * app.asar (Electron's fs serves the archive's files there, unpacked ones included), and
 * app.asar.unpacked copied beside it as the pack wrote it. Code in the archive then sees the
 * whole app; code run as a real file (workers, child processes) runs from app.asar.unpacked and
 * can reach only what was unpacked next to it, as in Electron.
 */
export function extractInstall(resources: string, into: string): string {
  const out = path.join(into, 'resources');
  extractAll(path.join(resources, 'app.asar'), path.join(out, 'app.asar'));
  cpSync(path.join(resources, 'app.asar.unpacked'), path.join(out, 'app.asar.unpacked'), {
    recursive: true,
  });
  return out;
}

const IMPORTS = [
  /(?:^|[;\s})])(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g,
  /(?:^|[;\s])import\s*['"]([^'"]+)['"]/g,
  /import\(\s*['"]([^'"]+)['"]\s*\)/g,
  /require\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function existingFile(candidate: string): string | null {
  for (const c of [candidate, `${candidate}.js`, path.join(candidate, 'index.js')]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/**
 * Files under `root` reachable by static imports from `entries` (relative ones only: packages
 * are their own closure). Unresolved relative imports are returned, with their importer.
 */
export function relativeClosure(entries: string[]): { files: Set<string>; missing: string[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    if (!/\.[cm]?js$/.test(file)) return;
    const text = readFileSync(file, 'utf8');
    for (const pattern of IMPORTS) {
      for (const [, spec] of text.matchAll(pattern)) {
        if (isBuiltin(spec) || !spec.startsWith('.')) continue;
        const target = existingFile(path.resolve(path.dirname(file), spec));
        if (target) visit(target);
        else missing.push(`${spec} <- ${file}`);
      }
    }
  };
  for (const e of entries) visit(e);
  return { files, missing };
}

/** Runs a demo server with plain Node; null once it answered initialize, else what went wrong. */
export function answersInitialize(file: string): Promise<string | null> {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '0' },
    },
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { detached: true, stdio: 'pipe' });
    let out = '';
    let err = '';
    const answered = () => out.includes('"id":1');
    const done = (problem: string | null) => {
      clearTimeout(timer);
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        // it exited by itself
      }
      resolve(problem);
    };
    const timer = setTimeout(
      () => done(`${path.basename(file)}: no answer in 20 s\n${err}`),
      20_000,
    );
    child.stdout.on('data', (b: Buffer) => {
      out += b;
      if (answered()) done(null);
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b;
    });
    child.on('exit', (code) =>
      done(answered() ? null : `${path.basename(file)}: exited ${code}\n${err}`),
    );
    child.stdin.end(`${JSON.stringify(init)}\n`);
  });
}
