/**
 * The only file-system object isomorphic-git ever receives: `node:fs/promises`, with every path
 * checked, lexically, to lie inside the repository's own directories (work tree, git dir, common
 * dir). Whatever a tool does, isomorphic-git cannot read or write anywhere else: a crafted ref name,
 * a `..` in a tree entry or a path argument that slipped past a check fails here with EACCES.
 *
 * Symlinks are not followed by this check (that needs a realpath per call, too slow for a status of
 * thousands of files); isomorphic-git itself only ever `lstat`s and `readlink`s work-tree entries,
 * and user-given paths are resolved with realpath by `confine.ts` before they get here.
 */
import { promises as fsp } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

export interface ConfinedFs {
  promises: typeof fsp;
}

function inside(dirs: readonly string[], file: string): boolean {
  const abs = resolve(file);
  return dirs.some((dir) => {
    const rel = relative(dir, abs);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

function refuse(op: string, file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`EACCES: ${op} outside the repository is not allowed: '${file}'`);
  error.code = 'EACCES';
  error.path = file;
  return error;
}

/** One shared rejection for calls without a path (isomorphic-git's fs probe); never shown to anyone. */
const NO_PATH: NodeJS.ErrnoException = Object.assign(new Error('ENOENT: no path given'), { code: 'ENOENT' });

const PATH_OPS = ['readFile', 'writeFile', 'unlink', 'readdir', 'mkdir', 'rmdir', 'rm', 'stat', 'lstat', 'readlink', 'chmod'] as const;

/** An fs for isomorphic-git that refuses every path outside `dirs` (absolute, already real paths). */
export function createConfinedFs(dirs: readonly string[]): ConfinedFs {
  const roots = dirs.map((d) => resolve(d));
  const promises: Record<string, unknown> = {};
  for (const op of PATH_OPS) {
    const real = (fsp as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[op]!;
    promises[op] = (file: string, ...rest: unknown[]) => {
      // isomorphic-git probes its fs with `readFile(undefined)` on every command: answer without building an error.
      if (file === undefined || file === null) return Promise.reject(NO_PATH);
      return inside(roots, String(file)) ? real.call(fsp, file, ...rest) : Promise.reject(refuse(op, String(file)));
    };
  }
  // symlink(target, path): only the link's own location matters (its target is just text stored in git).
  promises.symlink = (target: string, file: string) =>
    inside(roots, String(file)) ? fsp.symlink(target, file) : Promise.reject(refuse('symlink', String(file)));
  promises.rename = (from: string, to: string) =>
    inside(roots, String(from)) && inside(roots, String(to))
      ? fsp.rename(from, to)
      : Promise.reject(refuse('rename', inside(roots, String(from)) ? String(to) : String(from)));
  return { promises: promises as unknown as typeof fsp };
}

/** True when `file` lies in `dir` or is `dir` (both absolute). */
export function isInside(dir: string, file: string): boolean {
  return inside([dir], file);
}
