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
 * per folder and call (the WorkTree's cache), so a whole-tree walk costs no lstat per file; every read,
 * listing and change is then made through the WorkTree's `files` (workFile.ts), which checks again at the
 * open, so a link swapped in after the lookup is never followed either.
 */
import { promises as fsp } from 'node:fs';
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

/** `data` of a writeFile call as bytes (a string in the call's encoding, utf8 by default). */
function bytesOf(data: unknown, options: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  const encoding = (typeof options === 'string' ? options : (options as { encoding?: BufferEncoding } | undefined)?.encoding) ?? 'utf8';
  return Buffer.from(String(data), encoding as BufferEncoding);
}

/** A read's answer in the encoding asked for (`'utf8'`, `{ encoding }`), else the bytes. */
function encoded(bytes: Buffer, options: unknown): Buffer | string {
  const encoding = typeof options === 'string' ? options : (options as { encoding?: string | null } | undefined)?.encoding;
  return encoding && encoding !== 'buffer' ? bytes.toString(encoding as BufferEncoding) : bytes;
}

/**
 * The symlink rules for work-tree paths: `wt` is the work tree, `gitdir` (inside it or not) is exempt.
 * `beyondLink` answers from the call's lstats; the read or change itself is made through `wt.files`,
 * which checks again at the open (workFile.ts), so a link swapped in between is not followed either.
 */
function workTreeOps(wt: WorkTree, gitdir: string): Record<string, Op> {
  /** The work-tree path of `file`, or null when it is not in the work tree (or is in the git dir). */
  const workPath = (file: string): string | null => {
    const abs = resolve(file);
    if (relTo(gitdir, abs) !== null) return null;
    return relTo(wt.dir, abs);
  };
  const ops: Record<string, Op> = {};
  for (const op of READS) {
    ops[op] = async (file, ...rest) => {
      const rel = workPath(String(file));
      if (rel !== null && wt.beyondLink(rel)) throw linkError('ENOENT', op, String(file));
      if (rel !== null && rel !== '' && op === 'readFile') return encoded(wt.files.read(rel).bytes, rest[0]);
      if (rel !== null && rel !== '' && op === 'readlink') return encoded(wt.files.readlink(rel).bytes, rest[0]);
      return real[op]!.call(fsp, file, ...rest);
    };
  }
  ops.readdir = async (file, ...rest) => {
    const rel = workPath(String(file));
    if (rel === null) return real.readdir!.call(fsp, file, ...rest);
    if (wt.throughLink(rel)) throw linkError('ENOTDIR', 'readdir', String(file));
    const entries = wt.files.list(rel);
    return (rest[0] as { withFileTypes?: boolean } | undefined)?.withFileTypes ? entries : entries.map((d) => d.name);
  };
  for (const op of REMOVALS) {
    ops[op] = async (file, ...rest) => {
      const rel = workPath(String(file));
      if (rel === null || rel === '') return real[op]!.call(fsp, file, ...rest);
      const force = op === 'rm' && (rest[0] as { force?: boolean } | undefined)?.force === true;
      if (wt.beyondLink(rel)) {
        // Nothing of the work tree is there (git's unlink_entry skips it); never remove through the link.
        if (force) return undefined;
        throw linkError('ENOENT', op, String(file));
      }
      try {
        if (op === 'rm') wt.files.rm(rel, rest[0] as { recursive?: boolean; force?: boolean } | undefined);
        else wt.files[op](rel);
      } catch (error) {
        // A folder on the way that is gone, or turned into a link since the check: nothing to remove there.
        if (force && ['ENOENT', 'ENOTDIR', 'EACCES'].includes(String((error as NodeJS.ErrnoException).code))) return undefined;
        throw error;
      } finally {
        wt.changed(rel);
      }
      return undefined;
    };
  }
  ops.writeFile = async (file, data, options) => {
    const rel = workPath(String(file));
    if (rel === null || rel === '') return real.writeFile!.call(fsp, file, data, options);
    if (wt.beyondLink(rel)) throw linkError('EACCES', 'writeFile', String(file));
    // Never through a link: like git, a file checked out over a symlink replaces the link (write: temp file, rename).
    const mode = (options as { mode?: number } | undefined)?.mode ?? 0o666;
    try {
      wt.files.write(rel, bytesOf(data, options), mode);
    } finally {
      wt.changed(rel);
    }
    return undefined;
  };
  ops.chmod = async (file, mode) => {
    const rel = workPath(String(file));
    if (rel === null || rel === '') return real.chmod!.call(fsp, file, mode);
    if (wt.beyondLink(rel)) throw linkError('EACCES', 'chmod', String(file));
    wt.files.chmod(rel, Number(mode)); // git never chmods a link: nothing happens to one
    return undefined;
  };
  ops.mkdir = async (file, options) => {
    const rel = workPath(String(file));
    if (rel === null || rel === '') return real.mkdir!.call(fsp, file, options);
    if (wt.beyondLink(rel)) throw linkError('EACCES', 'mkdir', String(file));
    const opts = (typeof options === 'number' ? { mode: options } : (options ?? {})) as { mode?: number; recursive?: boolean };
    const parts = rel.split('/');
    // recursive: each missing folder on the way is made in its checked parent, one at a time.
    for (let i = opts.recursive ? 1 : parts.length; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      try {
        wt.files.mkdir(sub, opts.mode);
      } catch (error) {
        if (!(opts.recursive && (error as NodeJS.ErrnoException).code === 'EEXIST')) throw error;
      } finally {
        wt.changed(sub);
      }
    }
    return undefined;
  };
  ops.symlink = async (target, file) => {
    const rel = workPath(String(file));
    if (rel === null || rel === '') return fsp.symlink(String(target), String(file));
    if (wt.beyondLink(rel)) throw linkError('EACCES', 'symlink', String(file));
    try {
      wt.files.symlink(String(target), rel);
    } finally {
      wt.changed(rel);
    }
    return undefined;
  };
  ops.rename = async (from, to) => {
    const [a, b] = [workPath(String(from)), workPath(String(to))];
    if (a !== null && wt.beyondLink(a)) throw linkError('EACCES', 'rename', String(from));
    if (b !== null && wt.beyondLink(b)) throw linkError('EACCES', 'rename', String(to));
    try {
      if (a !== null && a !== '' && b !== null && b !== '') wt.files.rename(a, b);
      else if (a === null && b === null) await fsp.rename(String(from), String(to));
      // Between the git dir and the work tree: no caller does that; refused rather than done unchecked.
      else throw Object.assign(new Error(`EACCES: rename between the git directory and the work tree: '${from}'`), { code: 'EACCES' });
    } finally {
      if (a !== null) wt.changed(a);
      if (b !== null) wt.changed(b);
    }
    return undefined;
  };
  return ops;
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
