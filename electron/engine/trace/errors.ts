/**
 * One-line descriptions of file errors for trace and export messages: what happened in plain
 * words, with the errno code a person can search for.
 */

/** `no space left on device (ENOSPC)`, `permission denied (EACCES)`, … or the message. */
export function describeWriteError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOSPC':
      return 'no space left on device (ENOSPC)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'ENOENT':
      return 'no such directory (ENOENT)';
    case 'EISDIR':
      return 'it is a directory (EISDIR)';
    case 'EROFS':
      return 'read-only file system (EROFS)';
    case 'EDQUOT':
      return 'disk quota exceeded (EDQUOT)';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}
