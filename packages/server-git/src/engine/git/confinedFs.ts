/**
 * The only file-system object isomorphic-git ever receives: `node:fs/promises`, with every path
 * checked, lexically, to lie inside the repository's own directories (work tree, git dir, common
 * dir). Whatever a tool does, isomorphic-git cannot read or write anywhere else: a crafted ref name,
 * a `..` in a tree entry or a path argument that slipped past a check fails here with EACCES.
 *
 * Inside the work tree (outside the git dir), symlinks are treated as git treats them (see
 * workTree.ts): a path with a symlinked folder on its way is absent to every read (ENOENT) and to
 * every removal (nothing is removed), and refused to every write or mkdir (EACCES); a folder that is a
 * link is never listed; a file is never read through a link in its last component, and a write over
 * a symlink replaces the link instead of writing through it. Which folders are links is looked up once
 * per folder and call (the WorkTree's cache), so a whole-tree walk costs no lstat per file.
 */
import { constants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { linkError, type WorkTree } from './workTree.js';

export interface ConfinedFs {
  promises: typeof fsp;
}

function relTo(dir: string, abs: string): string | null {
  const rel = relative(dir, abs);
  if (rel === '') return '';
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

function inside(dirs: readonly string[], file: string): boolean {
  const abs = resolve(file);
  return dirs.some((dir) => relTo(dir, abs) !== null);
}

function refuse(op: string, file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`EACCES: ${op} outside the repository is not allowed: '${file}'`);
  error.code = 'EACCES';
  error.path = file;
  return error;
}

/** One shared rejection for calls without a path (isomorphic-git's fs probe); never shown to anyone. */
const NO_PATH: NodeJS.ErrnoException = Object.assign(new Error('ENOENT: no path given'), { code: 'ENOENT' });

type Op = (...args: unknown[]) => Promise<unknown>;
const real = fsp as unknown as Record<string, Op>;

const READS = ['readFile', 'stat', 'lstat', 'readlink'] as const;
const REMOVALS = ['unlink', 'rmdir', 'rm'] as const;
const WRITES = ['writeFile', 'mkdir', 'chmod'] as const;

/** The symlink rules for work-tree paths: `wt` is the work tree, `gitdir` (inside it or not) is exempt. */
function workTreeOps(wt: WorkTree, gitdir: string): Record<string, Op> {
  /** The work-tree path of `file`, or null when it is not in the work tree (or is in the git dir). */
  const workPath = (file: string): string | null => {
    const abs = resolve(file);
    if (relTo(gitdir, abs) !== null) return null;
    return relTo(wt.dir, abs);
  };
  const ops: Record<string, Op> = {};
  for (const op of READS) {
    ops[op] = (file, ...rest) => {
      const rel = workPath(String(file));
      if (rel !== null && wt.beyondLink(rel)) return Promise.reject(linkError('ENOENT', op, String(file)));
      if (op === 'readFile' && rel !== null && rel !== '') return readFileNoFollow(String(file), rest[0]);
      return real[op]!.call(fsp, file, ...rest);
    };
  }
  ops.readdir = (file, ...rest) => {
    const rel = workPath(String(file));
    if (rel !== null && wt.throughLink(rel)) return Promise.reject(linkError('ENOTDIR', 'readdir', String(file)));
    return real.readdir!.call(fsp, file, ...rest);
  };
  for (const op of REMOVALS) {
    ops[op] = async (file, ...rest) => {
      const rel = workPath(String(file));
      if (rel !== null && wt.beyondLink(rel)) {
        // Nothing of the work tree is there (git's unlink_entry skips it); never remove through the link.
        if (op === 'rm' && (rest[0] as { force?: boolean } | undefined)?.force) return undefined;
        throw linkError('ENOENT', op, String(file));
      }
      try {
        return await real[op]!.call(fsp, file, ...rest);
      } finally {
        if (rel !== null) wt.changed(rel);
      }
    };
  }
  for (const op of WRITES) {
    ops[op] = async (file, ...rest) => {
      const rel = workPath(String(file));
      if (rel === null || rel === '') return real[op]!.call(fsp, file, ...rest);
      if (wt.beyondLink(rel)) throw linkError('EACCES', op, String(file));
      if (op === 'writeFile' || op === 'chmod') {
        // Never through a link: git replaces a symlink it checks a file out over, and never chmods one.
        const st = await fsp.lstat(String(file)).catch(() => null);
        if (st?.isSymbolicLink()) {
          if (op === 'chmod') return undefined;
          await fsp.unlink(String(file));
          wt.changed(rel);
        }
      }
      try {
        return await real[op]!.call(fsp, file, ...rest);
      } finally {
        if (op === 'mkdir') wt.changed(rel);
      }
    };
  }
  ops.symlink = async (target, file) => {
    const rel = workPath(String(file));
    if (rel !== null && wt.beyondLink(rel)) throw linkError('EACCES', 'symlink', String(file));
    try {
      return await fsp.symlink(String(target), String(file));
    } finally {
      if (rel !== null) wt.changed(rel);
    }
  };
  ops.rename = async (from, to) => {
    const [a, b] = [workPath(String(from)), workPath(String(to))];
    if (a !== null && wt.beyondLink(a)) throw linkError('EACCES', 'rename', String(from));
    if (b !== null && wt.beyondLink(b)) throw linkError('EACCES', 'rename', String(to));
    try {
      return await fsp.rename(String(from), String(to));
    } finally {
      if (a !== null) wt.changed(a);
      if (b !== null) wt.changed(b);
    }
  };
  return ops;
}

/** O_NOFOLLOW where the platform has it (not on Windows, where lstat is checked first instead). */
const NOFOLLOW: number | undefined = constants.O_NOFOLLOW;

/** readFile of a work-tree file that never follows a symlink in its last component (absent to git: ENOENT). */
async function readFileNoFollow(file: string, options: unknown): Promise<unknown> {
  const encoding = (typeof options === 'string' ? options : (options as { encoding?: string | null } | undefined)?.encoding) as
    | BufferEncoding
    | null
    | undefined;
  if (NOFOLLOW === undefined) {
    if ((await fsp.lstat(file)).isSymbolicLink()) throw linkError('ENOENT', 'readFile', file);
    return encoding ? fsp.readFile(file, { encoding }) : fsp.readFile(file);
  }
  let handle: FileHandle;
  try {
    handle = await fsp.open(file, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkError('ENOENT', 'readFile', file);
    throw error;
  }
  try {
    return await (encoding ? handle.readFile({ encoding }) : handle.readFile());
  } finally {
    await handle.close();
  }
}

const PATH_OPS = ['readFile', 'writeFile', 'unlink', 'readdir', 'mkdir', 'rmdir', 'rm', 'stat', 'lstat', 'readlink', 'chmod'] as const;

/**
 * An fs for isomorphic-git that refuses every path outside `dirs` (absolute, already real paths). With
 * `workTree`, paths in it (and not in `gitdir`) also follow git's symlink rules (see the top of this file).
 */
export function createConfinedFs(dirs: readonly string[], workTree?: { tree: WorkTree; gitdir: string }): ConfinedFs {
  const roots = dirs.map((d) => resolve(d));
  const ops: Record<string, Op> = workTree ? workTreeOps(workTree.tree, resolve(workTree.gitdir)) : {};
  const promises: Record<string, unknown> = {};
  for (const op of PATH_OPS) {
    const call = ops[op] ?? ((file: unknown, ...rest: unknown[]) => real[op]!.call(fsp, file, ...rest));
    promises[op] = (file: string, ...rest: unknown[]) => {
      // isomorphic-git probes its fs with `readFile(undefined)` on every command: answer without building an error.
      if (file === undefined || file === null) return Promise.reject(NO_PATH);
      return inside(roots, String(file)) ? call(file, ...rest) : Promise.reject(refuse(op, String(file)));
    };
  }
  // symlink(target, path): only the link's own location matters (its target is just text stored in git).
  const symlink = ops.symlink ?? ((target: unknown, file: unknown) => fsp.symlink(String(target), String(file)));
  promises.symlink = (target: string, file: string) =>
    inside(roots, String(file)) ? symlink(target, file) : Promise.reject(refuse('symlink', String(file)));
  const rename = ops.rename ?? ((from: unknown, to: unknown) => fsp.rename(String(from), String(to)));
  promises.rename = (from: string, to: string) =>
    inside(roots, String(from)) && inside(roots, String(to))
      ? rename(from, to)
      : Promise.reject(refuse('rename', inside(roots, String(from)) ? String(to) : String(from)));
  return { promises: promises as unknown as typeof fsp };
}

/** True when `file` lies in `dir` or is `dir` (both absolute). */
export function isInside(dir: string, file: string): boolean {
  return inside([dir], file);
}
