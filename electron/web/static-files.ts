/**
 * Static files of browser mode: the built renderer (dist/renderer), GET and HEAD only.
 *
 * Owns: mapping a URL path to a file strictly inside the static root (resolve + prefix check,
 * then realpath so a symlink cannot lead out), content types, cache policy, and the security
 * headers every response of the server carries. Fed by: server.ts after the request passed the
 * Host / Origin / token gate. Nothing listens.
 */

import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { contentTypeFor } from './content-types.js';

/** Headers on every response, errors included. No CORS header of any kind, ever. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
    "frame-ancestors 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

export function sendText(
  res: ServerResponse,
  status: number,
  line: string,
  extra: Record<string, string> = {},
): void {
  const body = `${line}\n`;
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export interface StaticRoot {
  /** The real path of the root directory (symlinks resolved once at start). */
  real: string;
}

export async function openStaticRoot(dir: string): Promise<StaticRoot> {
  const real = await realpath(path.resolve(dir));
  if (!(await stat(real)).isDirectory()) throw new Error(`${dir} is not a directory`);
  return { real };
}

/** Resolves a URL pathname to a regular file inside the root, or null (→ 404). */
export async function resolveStaticFile(
  root: StaticRoot,
  pathname: string,
): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : `.${decoded}`;
  const candidate = path.resolve(root.real, relative);
  if (!candidate.startsWith(root.real + path.sep)) return null;
  try {
    // realpath: a symlink inside the root that points outside is refused like `..` would be.
    const real = await realpath(candidate);
    if (!real.startsWith(root.real + path.sep)) return null;
    if (!(await stat(real)).isFile()) return null;
    return real;
  } catch {
    return null;
  }
}

export async function serveStatic(
  root: StaticRoot,
  pathname: string,
  res: ServerResponse,
): Promise<void> {
  const file = await resolveStaticFile(root, pathname);
  if (!file) return sendText(res, 404, 'not found');
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return sendText(res, 404, 'not found');
  }
  const isIndex = path.relative(root.real, file) === 'index.html';
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': contentTypeFor(file),
    'Content-Length': String(size),
    // index.html names the hashed bundles of this build: never reuse a stale one.
    'Cache-Control': isIndex ? 'no-store' : 'no-cache',
  });
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
