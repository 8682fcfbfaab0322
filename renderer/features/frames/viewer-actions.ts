/**
 * Browser-side actions of the frame viewer: copy to the clipboard and save a small frame's
 * bytes as a download. Only the renderer's DOM APIs (no host calls): the bytes saved are
 * the text already loaded, checked against main's sha-256 before anything is written.
 */

/** Copy text; resolves false when the clipboard is unavailable or refuses. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string | null> {
  // crypto.subtle exists only in secure contexts (file:// in Electron, 127.0.0.1 in browser mode).
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Download `text` encoded as UTF-8 under `fileName`. When main gave a sha-256 and the
 * browser can hash, a mismatch refuses the save. Resolves an error message, or null.
 */
export async function saveText(
  text: string,
  expectedSha256: string | null,
  fileName: string,
): Promise<string | null> {
  const bytes = new TextEncoder().encode(text);
  if (expectedSha256) {
    const actual = await sha256Hex(bytes);
    if (actual !== null && actual !== expectedSha256.toLowerCase()) {
      return 'The loaded text does not hash to the frame’s sha-256; nothing was saved.';
    }
  }
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    link.rel = 'noopener';
    link.click();
  } finally {
    // The download has started from the click; the URL is no longer needed.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
  return null;
}
