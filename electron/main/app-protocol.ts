/**
 * The `app://pipescope/` protocol handler (HARDENING.md 28): serves only files under the built
 * renderer folder (dist/renderer), with a strict CSP and nosniff on every response, 404 for
 * anything outside it. Pure Node (fs + the global Response), so it is tested without Electron;
 * main.ts registers it with `protocol.handle`. Why a custom protocol rather than `loadFile`: see
 * build/FUSES.md ("Why app:// and not file://").
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { contentTypeFor } from '../web/content-types.js';
import { APP_HOST, APP_SCHEME } from './navigation.js';

/**
 * `registerSchemesAsPrivileged` for app://: standard + secure give a real origin ('self' in the
 * CSP, a secure context) without file://'s extra privileges; `corsEnabled` lets Chromium make the
 * CORS-mode requests `<script type="module">` uses — other origins still cannot read responses,
 * since none carries Access-Control-Allow-Origin and all carry CORP same-origin. Never
 * `bypassCSP`, never service workers.
 */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: true,
  codeCache: true,
} as const;

/**
 * Script only from our own origin, no inline or eval; no plugins, frames, forms or base
 * rewriting. Inline *styles* stay allowed (React style props and recharts set them; they cannot
 * run script), and every fetch target is 'self' so CSS cannot exfiltrate anywhere.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

export { contentTypeFor };

/**
 * Maps a request URL to a file under `root`, or null when it is not ours or would escape the
 * folder: wrong scheme/host, encoded slashes or backslashes, NUL, dot segments after decoding,
 * hidden files. `/` is index.html.
 */
export function resolveAppPath(root: string, rawUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.hostname !== APP_HOST || url.port !== '') {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  // Encoded separators would survive URL normalization and become real ones after decoding.
  if (/%2f|%5c|%00/i.test(url.pathname)) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\\') || pathname.includes('\0')) return null;
  const segments = pathname.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '.' || s === '..' || s.startsWith('.'))) return null;
  const relative = segments.length === 0 ? 'index.html' : segments.join('/');
  const base = path.resolve(root);
  const file = path.resolve(base, relative);
  const rel = path.relative(base, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return file;
}

function textResponse(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' },
  });
}

export interface AppRequest {
  url: string;
  method: string;
}

/** The handler for `protocol.handle(APP_SCHEME, …)`; never throws, always sets the CSP. */
export function createAppProtocolHandler(root: string): (request: AppRequest) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return textResponse(405, 'method not allowed');
    }
    const file = resolveAppPath(root, request.url);
    if (!file) return textResponse(404, 'not found');
    try {
      const info = await stat(file);
      if (!info.isFile()) return textResponse(404, 'not found');
      const body = request.method === 'HEAD' ? null : await readFile(file);
      return new Response(body, {
        status: 200,
        headers: {
          ...SECURITY_HEADERS,
          'Content-Type': contentTypeFor(file),
          'Content-Length': String(info.size),
        },
      });
    } catch {
      return textResponse(404, 'not found');
    }
  };
}
