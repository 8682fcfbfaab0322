/**
 * Renderer permission policy (HARDENING.md 30: permission requests denied). The one exception
 * is writing plain text to the clipboard from our own page — the frame viewer's "Copy" — which
 * Chromium grants as `clipboard-sanitized-write` (it can neither read the clipboard nor write
 * HTML or files). Everything else, for any origin, is refused.
 */
const ALLOWED = new Set(['clipboard-sanitized-write']);

export function isPermissionAllowed(
  permission: string,
  requestingUrl: string,
  isAppUrl: (u: string) => boolean,
): boolean {
  return ALLOWED.has(permission) && isAppUrl(requestingUrl);
}
