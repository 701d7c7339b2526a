/** Paths as git records them: git's byte-wise order, and the check that a recorded path stays in the work tree. */
import { GitError } from '../errors.js';

/** Byte-wise path order (git's), also right for non-ASCII names. */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  // Fast path for ASCII, where UTF-16 order is byte order.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x < 0x80 && y < 0x80) return x - y;
      return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
    }
  }
  return a.length - b.length;
}

/** Refuses a path from the index or a tree that could leave the work tree (`..`, absolute, `.git`). */
export function assertSafePath(path: string): void {
  if (
    path === '' ||
    path.startsWith('/') ||
    path.split('/').some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')
  ) {
    throw new GitError('DAMAGED', `Refusing the unsafe path '${path}' recorded in the repository`);
  }
}
