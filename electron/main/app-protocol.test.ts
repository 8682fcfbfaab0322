import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  APP_SCHEME_PRIVILEGES,
  CONTENT_SECURITY_POLICY,
  contentTypeFor,
  createAppProtocolHandler,
  resolveAppPath,
} from './app-protocol.js';

const base = mkdtempSync(path.join(tmpdir(), 'pipescope-proto-'));
const root = path.join(base, 'renderer');
mkdirSync(path.join(root, 'assets'), { recursive: true });
writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>x</title>');
writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)');
writeFileSync(path.join(root, '.secret'), 'hidden');
writeFileSync(path.join(base, 'outside.txt'), 'outside the renderer folder');
afterAll(() => rmSync(base, { recursive: true, force: true }));

const handler = createAppProtocolHandler(root);
const get = (url: string) => handler({ url, method: 'GET' });

describe('resolveAppPath', () => {
  it('maps our URLs to files under the root', () => {
    expect(resolveAppPath(root, 'app://pipescope/')).toBe(path.join(root, 'index.html'));
    expect(resolveAppPath(root, 'app://pipescope/index.html?x#y')).toBe(
      path.join(root, 'index.html'),
    );
    expect(resolveAppPath(root, 'app://pipescope/assets/index-abc.js')).toBe(
      path.join(root, 'assets', 'index-abc.js'),
    );
  });

  it.each([
    'app://pipescope/../outside.txt',
    'app://pipescope/%2e%2e/outside.txt',
    'app://pipescope/assets/..%2f..%2foutside.txt',
    'app://pipescope/..%5coutside.txt',
    'app://pipescope/%2E%2E%2Foutside.txt',
    'app://pipescope/assets%2f..%2f..%2foutside.txt',
    'app://pipescope/index.html%00.js',
    'app://pipescope/.secret',
    'app://pipescope/%E0%A4%A',
    'app://other/index.html',
    'app://pipescope:99/index.html',
    'https://pipescope/index.html',
    'file:///etc/passwd',
    'garbage',
  ])('refuses %s', (url) => {
    const resolved = resolveAppPath(root, url);
    if (resolved !== null) {
      // URL normalization may fold `..` away; whatever is left must still be inside the root.
      expect(path.relative(root, resolved).startsWith('..')).toBe(false);
      expect(resolved).not.toBe(path.join(base, 'outside.txt'));
    }
  });

  it('never resolves outside the root for dot-segment tricks', () => {
    expect(resolveAppPath(root, 'app://pipescope/assets/..%2f..%2foutside.txt')).toBeNull();
    expect(resolveAppPath(root, 'app://pipescope/.secret')).toBeNull();
    expect(resolveAppPath(root, 'app://other/index.html')).toBeNull();
  });
});

describe('the protocol handler', () => {
  it('serves index.html and assets with the CSP and the right type', async () => {
    const res = await get('app://pipescope/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<title>x</title>');
    const js = await get('app://pipescope/assets/index-abc.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('answers 404 (with the CSP) for traversal, missing files and folders', async () => {
    for (const url of [
      'app://pipescope/assets/..%2f..%2foutside.txt',
      'app://pipescope/nope.js',
      'app://pipescope/assets',
      'app://evil/index.html',
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await res.text()).not.toContain('outside the renderer folder');
    }
  });

  it('refuses methods other than GET and HEAD', async () => {
    expect((await handler({ url: 'app://pipescope/', method: 'POST' })).status).toBe(405);
    const head = await handler({ url: 'app://pipescope/', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('the CSP', () => {
  it('allows script only from self: no inline, no eval, no remote', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  it('knows the content types it serves', () => {
    expect(contentTypeFor('a.JS')).toMatch(/javascript/);
    expect(contentTypeFor('a.css')).toMatch(/text\/css/);
    expect(contentTypeFor('a.bin')).toBe('application/octet-stream');
  });
});

describe('the scheme privileges', () => {
  it('give app:// a real, secure origin and nothing that weakens the CSP', () => {
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ standard: true, secure: true });
    expect(APP_SCHEME_PRIVILEGES).not.toHaveProperty('bypassCSP');
    expect(APP_SCHEME_PRIVILEGES).not.toHaveProperty('allowServiceWorkers');
  });
});
