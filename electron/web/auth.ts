/**
 * Browser-mode gatekeeping (HARDENING.md 23-25): the per-launch token and the Host / Origin
 * checks every HTTP request and WebSocket upgrade passes before anything else happens.
 *
 * Owns: token generation and constant-time comparison, where a request may carry the token
 * (query, `Authorization: Bearer`, a port-scoped HttpOnly cookie), and the set of Host names we
 * answer to. Fed by: server.ts for each request/upgrade. Pure functions; nothing listens.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';

/** 32 random bytes, base64url: 43 characters. */
export const TOKEN_BYTES = 32;
const MIN_TOKEN_CHARS = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;

export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Rejects a caller-supplied token that is too short or unsafe in a URL or cookie. */
export function assertUsableToken(token: string): void {
  if (token.length < MIN_TOKEN_CHARS || !TOKEN_SHAPE.test(token)) {
    throw new Error(`browser-mode token must be ≥ ${MIN_TOKEN_CHARS} base64url characters`);
  }
}

/** Constant-time compare; the length check first is what timingSafeEqual requires. */
export function tokenMatches(expected: Buffer, candidate: string | undefined): boolean {
  if (candidate === undefined) return false;
  const given = Buffer.from(candidate, 'utf8');
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

/**
 * Cookies are scoped to a host, not a port: two instances on 127.0.0.1 must not overwrite each
 * other's token, so the port is part of the cookie name.
 */
export function cookieName(port: number): string {
  return `pipescope_token_${port}`;
}

export function tokenCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

export type TokenSource = 'query' | 'header' | 'cookie';

/** Which credential of the request is valid, if any (every presented one is tried). */
export function authenticate(
  req: IncomingMessage,
  url: URL,
  expected: Buffer,
  port: number,
): TokenSource | null {
  if (tokenMatches(expected, url.searchParams.get('token') ?? undefined)) return 'query';
  const auth = req.headers.authorization;
  // The scheme is case-insensitive (RFC 9110 §11.1): `bearer x` is as good as `Bearer x`.
  const bearer = auth !== undefined && /^bearer[ \t]+/i.exec(auth);
  if (bearer && tokenMatches(expected, auth.slice(bearer[0].length).trim())) return 'header';
  const name = cookieName(port);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    if (tokenMatches(expected, part.slice(eq + 1).trim())) return 'cookie';
  }
  return null;
}

const LOOPBACK_BINDS = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopbackBind(host: string): boolean {
  return LOOPBACK_BINDS.has(host.toLowerCase());
}

function hostLiteral(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The `Host` values we answer to: loopback names with our port (a DNS-rebinding page arrives
 * with its own name and gets 403). Binding another interface (explicit opt-in) adds its IP
 * literals — never a DNS name, never the wildcard itself (`0.0.0.0` is not an address).
 */
export function allowedHosts(port: number, bindHost: string): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  if (!isLoopbackBind(bindHost)) {
    if (bindHost === '0.0.0.0' || bindHost === '::') {
      for (const list of Object.values(networkInterfaces())) {
        for (const a of list ?? []) {
          if (bindHost === '0.0.0.0' && a.family !== 'IPv4') continue;
          if (!a.address.startsWith('fe80')) names.push(hostLiteral(a.address));
        }
      }
    } else {
      names.push(hostLiteral(bindHost));
    }
  }
  const out = new Set<string>();
  for (const n of names) {
    out.add(`${n.toLowerCase()}:${port}`);
    if (port === 80) out.add(n.toLowerCase());
  }
  return out;
}

export type GateFailure = { status: 401 | 403; reason: string };

/**
 * Host, then Origin, then token: a rebinding or cross-site page learns nothing beyond 403.
 * `requireOrigin` is set for WebSocket upgrades (browsers always send Origin there; a missing
 * one means a non-browser client or a stripped header, and we do not guess).
 */
export function checkRequest(
  req: IncomingMessage,
  url: URL,
  gate: { hosts: Set<string>; token: Buffer; port: number; requireOrigin: boolean },
): { ok: true; source: TokenSource } | ({ ok: false } & GateFailure) {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!gate.hosts.has(host)) return { ok: false, status: 403, reason: 'forbidden host' };
  const origin = req.headers.origin;
  if (origin === undefined) {
    if (gate.requireOrigin) return { ok: false, status: 403, reason: 'origin required' };
  } else if (origin.toLowerCase() !== `http://${host}`) {
    // Exactly our origin: `null`, another port, another host or https all fail.
    return { ok: false, status: 403, reason: 'forbidden origin' };
  }
  const source = authenticate(req, url, gate.token, gate.port);
  if (!source) return { ok: false, status: 401, reason: 'token required' };
  return { ok: true, source };
}
