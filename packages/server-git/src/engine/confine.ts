/**
 * Confinement: every `repo_path` and every file argument is resolved (cwd, `..`, symlinks) and must
 * lie inside an allowed root, and so must the repository's git directory and its common directory
 * (a `.git` *file* or a `commondir` link pointing elsewhere is refused). Checked on every call.
 */
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { GitError } from './errors.js';
import { isInside } from './git/confinedFs.js';

export interface RepoLocation {
  /** The work tree, a real absolute path. */
  dir: string;
  /** The git directory (`<dir>/.git`, or where a `.git` file points), real. */
  gitdir: string;
  /** Where objects and refs live: `gitdir`, or its `commondir` for a linked worktree. Real. */
  commondir: string;
}

function within(roots: readonly string[], path: string): boolean {
  return roots.some((root) => isInside(root, path));
}

function describeRoots(roots: readonly string[]): string {
  return roots.length === 1 ? `the allowed root '${roots[0]}'` : `the allowed roots (${roots.map((r) => `'${r}'`).join(', ')})`;
}

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

async function isGitDir(path: string): Promise<boolean> {
  try {
    const [head, objects] = await Promise.all([stat(join(path, 'HEAD')), stat(join(path, 'objects'))]);
    return head.isFile() && objects.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Resolves `repoPath` (relative to the server's working directory, as the reference does) to a work
 * tree inside `roots`, with its git directories checked too. Throws a GitError that says what is
 * wrong and, when the path is inside a work tree but not at its top, where the top is.
 */
export async function resolveRepository(repoPath: string, roots: readonly string[]): Promise<RepoLocation> {
  if (repoPath.trim() === '') throw new GitError('INVALID_ARGUMENT', 'repo_path is empty: give the path of a git work tree');
  const given = resolve(repoPath);
  const dir = await realOrNull(given);
  if (dir === null) throw new GitError('NOT_A_REPOSITORY', `Repository path '${repoPath}' does not exist`);
  if (!within(roots, dir)) {
    throw new GitError('OUTSIDE_ROOTS', `Repository path '${repoPath}' is outside ${describeRoots(roots)}`);
  }
  const dotGit = join(dir, '.git');
  let gitdir: string | null = null;
  let info: Awaited<ReturnType<typeof lstat>> | null = null;
  try {
    info = await lstat(dotGit);
  } catch {
    info = null;
  }
  if (info === null) {
    if (await isGitDir(dir))
      throw new GitError('NOT_A_REPOSITORY', `'${repoPath}' is a bare repository; this server works on repositories with a work tree`);
    // Say where the top is when repo_path is inside a work tree (without looking above the roots).
    for (let up = dirname(dir); within(roots, up) && up !== dirname(up); up = dirname(up)) {
      if ((await realOrNull(join(up, '.git'))) !== null) {
        throw new GitError('NOT_A_REPOSITORY', `'${repoPath}' is not the top of a git work tree; the repository is at '${up}'`);
      }
    }
    throw new GitError('NOT_A_REPOSITORY', `'${repoPath}' is not a git repository (it has no .git)`);
  }
  if (info.isFile()) {
    const text = await readFile(dotGit, 'utf8');
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
    if (!m) throw new GitError('NOT_A_REPOSITORY', `'${dotGit}' is a .git file without a "gitdir:" line`);
    gitdir = await realOrNull(resolve(dir, m[1]!));
    if (gitdir === null) throw new GitError('NOT_A_REPOSITORY', `'${dotGit}' points to '${m[1]}', which does not exist`);
  } else {
    gitdir = await realOrNull(dotGit);
    if (gitdir === null) throw new GitError('NOT_A_REPOSITORY', `'${dotGit}' is a broken link`);
  }
  if (!within(roots, gitdir)) {
    throw new GitError('OUTSIDE_ROOTS', `The git directory of '${repoPath}' ('${gitdir}') is outside ${describeRoots(roots)}`);
  }
  if (!(await isGitDir(gitdir)) && !(await isLinkedGitDir(gitdir))) {
    throw new GitError('NOT_A_REPOSITORY', `'${repoPath}' is not a git repository ('${gitdir}' has no HEAD or objects)`);
  }
  let commondir = gitdir;
  try {
    const link = (await readFile(join(gitdir, 'commondir'), 'utf8')).trim();
    const real = await realOrNull(resolve(gitdir, link));
    if (real === null) throw new GitError('NOT_A_REPOSITORY', `The commondir of '${repoPath}' ('${link}') does not exist`);
    commondir = real;
  } catch (error) {
    if (error instanceof GitError) throw error;
  }
  if (!within(roots, commondir)) {
    throw new GitError('OUTSIDE_ROOTS', `The shared git directory of '${repoPath}' ('${commondir}') is outside ${describeRoots(roots)}`);
  }
  return { dir, gitdir, commondir };
}

async function isLinkedGitDir(gitdir: string): Promise<boolean> {
  try {
    return (await stat(join(gitdir, 'HEAD'))).isFile() && (await stat(join(gitdir, 'commondir'))).isFile();
  } catch {
    return false;
  }
}

/**
 * A file argument as a work-tree path (`/`-separated, relative to the top): relative names are taken
 * from the top of the work tree (as the reference's `git add` does), absolute ones must lie inside it.
 * Refused: paths outside the work tree, paths inside `.git`, and paths that pass through a symlinked
 * directory (git says "beyond a symbolic link"). The file itself may be missing (a deletion) or a symlink.
 */
export async function resolveWorkPath(repo: RepoLocation, file: string): Promise<string> {
  if (file === '') throw new GitError('INVALID_ARGUMENT', 'A file path is empty');
  if (file.includes('\0')) throw new GitError('INVALID_ARGUMENT', `Invalid path: '${file.replace(/\0/g, '\\0')}'`);
  let abs = isAbsolute(file) ? resolve(file) : resolve(repo.dir, file);
  if (isAbsolute(file)) {
    // An absolute path may reach the work tree through a symlink (/tmp → /private/tmp): compare real paths.
    const realDir = await realOrNull(dirname(abs));
    if (realDir !== null) abs = join(realDir, basename(abs));
  }
  const rel = relative(repo.dir, abs);
  if (rel === '') return '';
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new GitError('OUTSIDE_ROOTS', `Path '${file}' is outside the repository '${repo.dir}'`);
  const parts = rel.split(sep);
  if (parts.some((p) => p.toLowerCase() === '.git'))
    throw new GitError('OUTSIDE_ROOTS', `Path '${file}' is inside the .git directory, which is never staged or changed`);
  // Every directory on the way must be a real directory inside the work tree (no symlink hops out).
  const parent = dirname(abs);
  const realParent = await realOrNull(parent);
  if (realParent !== null && realParent !== parent && !isInside(repo.dir, realParent)) {
    throw new GitError('OUTSIDE_ROOTS', `Path '${file}' is beyond a symbolic link that leads outside the repository`);
  }
  if (realParent !== null && realParent !== parent) {
    throw new GitError('OUTSIDE_ROOTS', `Path '${file}' is beyond a symbolic link`);
  }
  return parts.join('/');
}
