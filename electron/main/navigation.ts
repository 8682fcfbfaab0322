/**
 * URL policy for the Electron shell (HARDENING.md 28-29), as pure functions so it is tested in
 * plain Node. The UI lives at `app://pipescope/…` (see app-protocol.ts); anything else is either
 * denied or, when it is a parsed `https:` URL, handed to the OS browser — never loaded in-app.
 * main.ts applies these to `will-navigate`, `will-redirect`, `will-frame-navigate` and
 * `setWindowOpenHandler`.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'pipescope';
/** Where the window starts (the demo catalog is the renderer's first screen). */
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Parses strictly: no surrounding whitespace or control characters the URL parser would drop. */
function parse(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 8192) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
  if (raw.trim() !== raw || /[\u0000-\u001f\u007f]/.test(raw)) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * True for URLs of our own UI. Node's URL gives non-special schemes an opaque origin ("null"),
 * so compare scheme and host instead of `origin`; no credentials or port may ride along.
 */
export function isAppUrl(raw: unknown): boolean {
  const url = parse(raw);
  return (
    url !== null &&
    url.protocol === `${APP_SCHEME}:` &&
    url.hostname === APP_HOST &&
    url.port === '' &&
    url.username === '' &&
    url.password === ''
  );
}

/**
 * The only URLs ever given to `shell.openExternal`: parsed `https:` with a host and no
 * credentials (CVE-2025-6514 was a server-supplied URL handed to the OS opener). Returns the
 * normalized href, or null to refuse.
 */
export function externalUrl(raw: unknown): string | null {
  const url = parse(raw);
  if (url?.protocol !== 'https:') return null;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return null;
  return url.href;
}

export interface NavigationDecision {
  /** Let the navigation happen in the window (only within our own UI). */
  allow: boolean;
  /** A vetted https URL to open in the OS browser instead, or null. */
  openExternally: string | null;
}

/** `will-navigate` / `will-redirect`: stay inside `app://pipescope`, everything else is denied. */
export function decideNavigation(raw: unknown): NavigationDecision {
  if (isAppUrl(raw)) return { allow: true, openExternally: null };
  return { allow: false, openExternally: externalUrl(raw) };
}

/** `setWindowOpenHandler`: no new windows ever; an https link goes to the OS browser. */
export function decideWindowOpen(raw: unknown): NavigationDecision {
  return { allow: false, openExternally: externalUrl(raw) };
}

/** The project page for Help → README, from package.json `homepage` (https only), else null. */
export function projectPageUrl(pkg: { homepage?: unknown } | null | undefined): string | null {
  return externalUrl(pkg?.homepage);
}
